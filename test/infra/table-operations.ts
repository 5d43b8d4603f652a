import * as os from 'node:os';
import * as path from 'node:path';
import { build } from 'esbuild';
import { HANDLERS_DIR } from '../../lib/constructs/api-function';
import { PROJECT_ROOT } from '../../lib/constructs/node-function';
import { TASKS_DIR } from '../../lib/constructs/tasks';
import { WORKERS_DIR } from '../../lib/constructs/workflow';
import type { TableAccess, TableAction } from '#grants';
import { TABLE_DESIGN, type IndexName } from '#platform/table-design';
import { FALLBACK_HANDLER, FALLBACK_TABLE_ACCESS, ROUTES } from '#routes';
import { TASKS } from '#tasks';
import { WORKFLOWS } from '#workflows';

/**
 * What each function's code can do with the table, read from its bundle rather than from its
 * declaration: the DynamoDB commands its modules send and, for transactions, the kinds of items
 * they build. The bundle is what esbuild keeps of the entry, so a function of a shared module that
 * the entry never reaches (and whatever it would send) is not counted.
 */

/** One function of the stack: its name in messages, its entry module and its declaration. */
export interface FunctionEntry {
  readonly name: string;
  readonly entry: string;
  readonly access: TableAccess;
}

/** Every Lambda function of the stack: the routes, the fallback, the workflow workers and the tasks. */
export function functionEntries(): FunctionEntry[] {
  return [
    ...ROUTES.map((route) => ({
      name: `${route.method} ${route.path} (${route.operationId})`,
      entry: path.join(HANDLERS_DIR, `${route.handler}.ts`),
      access: route,
    })),
    {
      name: '$default (fallback)',
      entry: path.join(HANDLERS_DIR, `${FALLBACK_HANDLER}.ts`),
      access: FALLBACK_TABLE_ACCESS,
    },
    ...WORKFLOWS.flatMap((workflow) =>
      Object.entries(workflow.workers).map(([substitution, worker]) => ({
        name: `${workflow.name} ${substitution}`,
        entry: path.join(WORKERS_DIR, `${worker.handler}.ts`),
        access: worker,
      })),
    ),
    ...TASKS.map((task) => ({
      name: `task ${task.name}`,
      entry: path.join(TASKS_DIR, `${task.handler}.ts`),
      access: task,
    })),
  ];
}

/** A DynamoDB operation as the code sends it; transactions are authorized by what they contain. */
type Operation = TableAction | 'Scan' | 'TransactGetItems' | 'TransactWriteItems';

/** The operation each command class (and paginator) of lib-dynamodb and client-dynamodb sends. */
const OPERATIONS: Readonly<Record<string, Operation>> = {
  GetCommand: 'GetItem',
  GetItemCommand: 'GetItem',
  BatchGetCommand: 'BatchGetItem',
  BatchGetItemCommand: 'BatchGetItem',
  QueryCommand: 'Query',
  paginateQuery: 'Query',
  PutCommand: 'PutItem',
  PutItemCommand: 'PutItem',
  UpdateCommand: 'UpdateItem',
  UpdateItemCommand: 'UpdateItem',
  DeleteCommand: 'DeleteItem',
  DeleteItemCommand: 'DeleteItem',
  BatchWriteCommand: 'BatchWriteItem',
  BatchWriteItemCommand: 'BatchWriteItem',
  ScanCommand: 'Scan',
  paginateScan: 'Scan',
  TransactGetCommand: 'TransactGetItems',
  TransactGetItemsCommand: 'TransactGetItems',
  TransactWriteCommand: 'TransactWriteItems',
  TransactWriteItemsCommand: 'TransactWriteItems',
};

/** The aggregated clients send any operation through a method of its name, which the scan cannot follow. */
const UNSCANNABLE_MEMBERS = new Set(['DynamoDB', 'DynamoDBDocument']);

const DYNAMODB_PACKAGES = new Set(['@aws-sdk/lib-dynamodb', '@aws-sdk/client-dynamodb']);

/** The item kinds of TransactWriteItems, each authorized as its own action. */
const TRANSACTION_ITEM_ACTIONS = {
  Put: 'PutItem',
  Update: 'UpdateItem',
  Delete: 'DeleteItem',
  ConditionCheck: 'ConditionCheckItem',
} as const satisfies Record<string, TableAction>;
type TransactionItemKind = keyof typeof TRANSACTION_ITEM_ACTIONS;

/**
 * Every index query goes through one of these functions, called with a constant whose `design`
 * names the index (a ShardedIndex, or an IndexRef); an index queried any other way fails the
 * derivation rather than being missed.
 */
const INDEX_QUERY = { module: 'lambdas/platform/sharded-index.ts', fn: 'entriesBefore or indexPage' } as const;
/** A call of one, capturing its first argument; esbuild may suffix the name with a digit. */
const INDEX_QUERY_CALL = /\b(?:entriesBefore|indexPage)\d*\(\s*(\w+)/g;

/** What one module of the bundle contributes. */
export interface ModuleTableUse {
  readonly operations: Set<Operation>;
  readonly transactionItems: Set<TransactionItemKind>;
  /** The indexes whose queries this module starts (through INDEX_QUERY). */
  readonly queriedIndexes: Set<IndexName>;
}

/** What a function's code can do with the table, as its declaration should state it. */
export interface DerivedTableAccess {
  readonly table: Set<TableAction>;
  readonly tableIndexes: Set<IndexName>;
  /** By module path (`lambdas/domain/access/api-keys.ts`), only the modules that use the table. */
  readonly modules: ReadonlyMap<string, ModuleTableUse>;
}

/** A bundle cut at esbuild's `// <path>` line before each module's code, joined by module. */
function moduleSections(bundle: string): Map<string, string> {
  const parts = bundle.split(/^\/\/ (\S+)$/m);
  const sections = new Map<string, string>([['<runtime>', parts[0] ?? '']]);
  for (let i = 1; i < parts.length; i += 2) {
    const modulePath = parts[i]!;
    sections.set(modulePath, `${sections.get(modulePath) ?? ''}\n${parts[i + 1] ?? ''}`);
  }
  return sections;
}

const escaped = (name: string) => name.replace(/[$]/g, '\\$');

/** The DynamoDB operations a module's code sends, through the variables that hold the SDK packages. */
function operationsIn(modulePath: string, code: string, sdkVariables: ReadonlySet<string>): Set<Operation> {
  const operations = new Set<Operation>();
  for (const variable of sdkVariables) {
    const uses = [
      ...code.matchAll(new RegExp(`\\b${escaped(variable)}\\b(?!\\s*=\\s*(?:__toESM\\()?require\\()`, 'g')),
    ];
    for (const use of uses) {
      const member = /^\.(\w+)/.exec(code.slice(use.index + use[0].length))?.[1];
      if (!member || UNSCANNABLE_MEMBERS.has(member)) {
        throw new Error(
          `${modulePath} uses the DynamoDB SDK as ${member ?? `${variable} itself`}, which the scan cannot follow: import the command classes by name.`,
        );
      }
      if (!/Command$|^paginate[A-Z]/.test(member)) continue;
      const operation = OPERATIONS[member];
      if (!operation)
        throw new Error(`${modulePath} sends ${member}, which the scan does not know: add it to OPERATIONS.`);
      operations.add(operation);
    }
  }
  return operations;
}

/** `ACTIVE_JOBS_INDEX` in the bundle: `var ACTIVE_JOBS_INDEX = { design: TABLE_DESIGN.activeJobs, … }`. */
function indexOfConstant(bundle: string, constant: string, caller: string): IndexName {
  const designKey = new RegExp(`\\bvar ${escaped(constant)} = \\{[^}]*?\\bdesign: TABLE_DESIGN\\d*\\.(\\w+)`).exec(
    bundle,
  )?.[1];
  const design = (TABLE_DESIGN as Readonly<Record<string, unknown>>)[designKey ?? ''];
  const index = TABLE_DESIGN.indexes.find((candidate) => candidate === design);
  if (!index) {
    throw new Error(
      `${caller} calls ${INDEX_QUERY.fn} with ${constant}, which is not a constant whose design is one of TABLE_DESIGN's indexes.`,
    );
  }
  return index.indexName;
}

function deriveFromBundle(bundle: string): DerivedTableAccess {
  const sdkVariables = new Set(
    [...bundle.matchAll(/\bvar (\w+) = (?:__toESM\()?require\("([^"]+)"\)/g)]
      .filter((match) => DYNAMODB_PACKAGES.has(match[2]!))
      .map((match) => match[1]!),
  );
  const modules = new Map<string, ModuleTableUse>();
  for (const [modulePath, code] of moduleSections(bundle)) {
    const use: ModuleTableUse = {
      operations: operationsIn(modulePath, code, sdkVariables),
      transactionItems: new Set(),
      queriedIndexes: new Set(),
    };
    if (modulePath.startsWith('lambdas/')) {
      for (const match of code.matchAll(/\b(Put|Update|Delete|ConditionCheck): \{/g)) {
        use.transactionItems.add(match[1] as TransactionItemKind);
      }
      // The index module's own declaration of the function is not a call.
      const calls = modulePath === INDEX_QUERY.module ? [] : code.matchAll(INDEX_QUERY_CALL);
      for (const match of calls) use.queriedIndexes.add(indexOfConstant(bundle, match[1]!, modulePath));
    }
    if (/\bIndexName:/.test(code) && modulePath !== INDEX_QUERY.module) {
      throw new Error(
        `${modulePath} queries an index itself: query it through ${INDEX_QUERY.fn} (${INDEX_QUERY.module}).`,
      );
    }
    if (use.operations.size + use.transactionItems.size + use.queriedIndexes.size > 0) modules.set(modulePath, use);
  }

  const operationsOf = (predicate: (modulePath: string) => boolean) =>
    new Set([...modules].filter(([modulePath]) => predicate(modulePath)).flatMap(([, use]) => [...use.operations]));
  // The index module's own operations are the index queries its callers start, not table reads.
  const tableOperations = operationsOf((modulePath) => modulePath !== INDEX_QUERY.module);
  const indexOperations = operationsOf((modulePath) => modulePath === INDEX_QUERY.module);
  const tableIndexes = new Set([...modules.values()].flatMap((use) => [...use.queriedIndexes]));
  if ([...indexOperations].some((operation) => operation !== 'Query')) {
    throw new Error(`${INDEX_QUERY.module} sends ${[...indexOperations].join(', ')}; it should only query indexes.`);
  }
  if (indexOperations.has('Query') !== tableIndexes.size > 0) {
    throw new Error(
      `The bundle ${indexOperations.has('Query') ? 'queries an index' : 'queries no index'}, but the calls of ${INDEX_QUERY.fn} name ${[...tableIndexes].join(', ') || 'none'}.`,
    );
  }

  const items = new Set([...modules.values()].flatMap((use) => [...use.transactionItems]));
  if (items.size > 0 && !tableOperations.has('TransactWriteItems')) {
    throw new Error(`The bundle builds transaction items (${[...items].join(', ')}) but sends no transaction.`);
  }
  const table = new Set<TableAction>();
  for (const operation of tableOperations) {
    if (operation === 'Scan') throw new Error('The bundle scans the table, which no function may do.');
    if (operation === 'TransactGetItems') table.add('GetItem');
    else if (operation !== 'TransactWriteItems') table.add(operation);
  }
  for (const item of items) table.add(TRANSACTION_ITEM_ACTIONS[item]);
  return { table, tableIndexes, modules };
}

/**
 * Bundles every entry in one esbuild run, as the CDK app does (CommonJS, node24, the SDK's module
 * builds) but neither minified (esbuild then writes each module's path before its code and keeps
 * names) nor with the AWS SDK inside (each SDK member the code uses stays `<package variable>.<member>`).
 */
export async function deriveTableAccess(entries: readonly FunctionEntry[]): Promise<Map<string, DerivedTableAccess>> {
  const result = await build({
    absWorkingDir: PROJECT_ROOT,
    entryPoints: Object.fromEntries(entries.map((entry, index) => [`function-${index}`, entry.entry])),
    outdir: path.join(os.tmpdir(), 'table-access'),
    write: false,
    bundle: true,
    platform: 'node',
    target: 'node24',
    format: 'cjs',
    mainFields: ['module', 'main'],
    external: ['@aws-sdk/*'],
    logLevel: 'silent',
  });
  const bundles = new Map(result.outputFiles.map((file) => [path.basename(file.path, '.js'), file.text]));
  return new Map(
    entries.map((entry, index) => {
      const bundle = bundles.get(`function-${index}`);
      if (bundle === undefined) throw new Error(`esbuild wrote no bundle for ${entry.name}`);
      try {
        return [entry.name, deriveFromBundle(bundle)];
      } catch (error) {
        throw new Error(`${entry.name}: ${(error as Error).message}`);
      }
    }),
  );
}
