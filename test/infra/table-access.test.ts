import { ROUTES } from '#routes';
import { TASKS } from '#tasks';
import { WORKFLOWS } from '#workflows';
import { deriveTableAccess, functionEntries, type DerivedTableAccess } from './table-operations';

// Each function's table declaration (routes, fallback, workers, tasks) against what its bundle can
// do: every entry bundled in one esbuild run, then scanned (test/infra/table-operations.ts).
const entries = functionEntries();
let derived: Map<string, DerivedTableAccess>;
beforeAll(async () => {
  derived = await deriveTableAccess(entries);
});

const derivedFor = (name: string) => {
  const found = derived.get(name);
  if (!found) throw new Error(`No function named ${name}`);
  return found;
};
const sorted = (values: Iterable<string>) => [...values].sort();
const moduleUse = (functionName: string, modulePath: string) => {
  const use = derivedFor(functionName).modules.get(modulePath);
  return (
    use && {
      operations: sorted(use.operations),
      items: sorted(use.transactionItems),
      indexes: sorted(use.queriedIndexes),
    }
  );
};

describe('the scan sees what the code does', () => {
  test('there is one entry per route, the fallback, each worker and each task', () => {
    const workers = WORKFLOWS.reduce((count, workflow) => count + Object.keys(workflow.workers).length, 0);
    expect(entries).toHaveLength(ROUTES.length + 1 + workers + TASKS.length);
    expect(derived.size).toBe(entries.length);
  });

  test("authentication's reads and counter updates, in the modules that send them", () => {
    const name = 'GET /me (getMe)';
    expect(moduleUse(name, 'lambdas/domain/access/api-keys.ts')?.operations).toContain('GetItem');
    expect(moduleUse(name, 'lambdas/domain/access/rate-limits.ts')?.operations).toContain('UpdateItem');
  });

  test("a job's creation: the transaction and the kinds of item it holds, including the job-list entry a failed start deletes", () => {
    const name = 'POST /video-jobs (createVideoJob)';
    expect(moduleUse(name, 'lambdas/platform/transactions.ts')).toEqual({
      operations: ['TransactWriteItems'],
      items: [],
      indexes: [],
    });
    expect(moduleUse(name, 'lambdas/domain/jobs/job-store.ts')?.items).toContain('Put');
    expect(moduleUse(name, 'lambdas/domain/jobs/job-list-entries.ts')?.items).toEqual(['Delete', 'Put']);
  });

  test("the clips' transaction is conditional on the job, and the list of jobs batch-reads them", () => {
    expect(moduleUse('split-job ChooseClipsFunction', 'lambdas/domain/split-jobs/clip-store.ts')?.items).toContain(
      'ConditionCheck',
    );
    expect(moduleUse('GET /jobs (listJobs)', 'lambdas/platform/batch-get.ts')?.operations).toEqual(['BatchGetItem']);
  });

  test('index queries are told apart from table queries, and named by the module that starts them', () => {
    expect(moduleUse('task reconcile-jobs', 'lambdas/domain/jobs/job-store.ts')?.indexes).toEqual(['active-jobs']);
    expect(moduleUse('task sweep-webhooks', 'lambdas/domain/events/outbox-index.ts')?.indexes).toEqual(['outbox']);
    expect(sorted(derivedFor('task reconcile-jobs').tableIndexes)).toEqual(['active-jobs']);
    // Its one table query reads the clips of a split job it expires at its deadline.
    expect(moduleUse('task reconcile-jobs', 'lambdas/domain/jobs/job-store.ts')?.operations).not.toContain('Query');
    expect(moduleUse('task reconcile-jobs', 'lambdas/domain/split-jobs/clip-store.ts')?.operations).toContain('Query');
    // Creating a job computes its active-jobs shard but never queries the index.
    expect(sorted(derivedFor('POST /video-jobs (createVideoJob)').tableIndexes)).toEqual([]);
  });

  test('code a function never reaches is not counted: GET /me bundles the organizations module but not its creation', () => {
    const organizations = moduleUse('GET /me (getMe)', 'lambdas/domain/access/organizations.ts');
    expect(organizations?.operations).toContain('GetItem');
    expect(organizations?.operations).not.toContain('PutItem');
    expect(sorted(derivedFor('GET /me (getMe)').table)).toEqual(['BatchGetItem', 'GetItem', 'UpdateItem']);
  });
});

describe('each function declares exactly the table actions and indexes its code can use', () => {
  test.each(entries.map((entry) => [entry.name, entry] as const))('%s', (name, entry) => {
    const { table, tableIndexes } = derivedFor(name);
    expect({ name, table: sorted(entry.access.table), tableIndexes: sorted(entry.access.tableIndexes ?? []) }).toEqual({
      name,
      table: sorted(table),
      tableIndexes: sorted(tableIndexes),
    });
  });

  test('no declaration names an action or an index twice', () => {
    for (const { name, access } of entries) {
      for (const list of [access.table, access.tableIndexes ?? []]) {
        expect({ name, list: [...new Set(list)] }).toEqual({ name, list: [...list] });
      }
    }
  });
});
