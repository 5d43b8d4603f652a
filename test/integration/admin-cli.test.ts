import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { HeadBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { ListExecutionsCommand, SFNClient } from '@aws-sdk/client-sfn';
import { GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { hashSecret, parseApiKey } from '#domain/access/api-keys';
import { call, createKey as createKeyWithoutCli } from './support/stack';
import { runAdmin, startStackProcess, stopStackProcess } from './support/stack-process';
import { stackDataDir } from '../support/stack-data-dir';

/** The operator CLI against the running local stack. */
const admin = (...args: string[]) => runAdmin(process.env.IT_DATA_DIR!, args);

const json = (stdout: string) => JSON.parse(stdout) as Record<string, unknown>;

describe('operator CLI', () => {
  it('creates an organization and a key that the API accepts, printing one JSON object each', async () => {
    const org = await admin(
      'org',
      'create',
      '--plan',
      'custom',
      '--credits',
      '70',
      '--limit',
      'concurrent_video_jobs=9',
      '--json',
    );
    expect(org.code).toBe(0);
    expect(json(org.stdout)).toMatchObject({
      organization_id: expect.any(Number),
      plan: 'custom',
      credits_balance: 70,
      limits: { concurrent_video_jobs: 9 },
    });
    const organizationId = String(json(org.stdout).organization_id);

    const key = await admin(
      'key',
      'create',
      '--org',
      organizationId,
      '--env',
      'live',
      '--scopes',
      'video:read,assets:read',
      '--json',
    );
    expect(key.code).toBe(0);
    const created = json(key.stdout);
    expect(created).toMatchObject({
      key: expect.stringMatching(/^svc_live_/),
      key_prefix: expect.any(String),
      scopes: ['video:read', 'assets:read'],
    });

    const me = await call<Record<string, unknown>>('GET', '/me', { key: created.key as string });
    expect(me.body).toMatchObject({
      organization_id: Number(organizationId),
      environment: 'live',
      plan: 'custom',
      scopes: ['video:read', 'assets:read'],
    });
    expect(me.body.limits).toMatchObject({ concurrent_video_jobs: 9 });

    expect((await admin('credits', 'set', '--org', organizationId, '--balance', '5', '--json')).code).toBe(0);
    const shown = await admin('org', 'show', '--org', organizationId, '--json');
    expect(json(shown.stdout).credits_balance).toBe(5);

    expect((await admin('org', 'update', '--org', organizationId, '--plan', 'pro', '--json')).code).toBe(0);
    expect((await call('GET', '/me', { key: created.key as string })).status).toBe(403);

    const revoked = await admin('key', 'revoke', '--key-prefix', created.key_prefix as string, '--json');
    expect(json(revoked.stdout)).toMatchObject({ status: 'revoked' });
    expect((await call('GET', '/me', { key: created.key as string })).status).toBe(401);
  });

  it.each([
    ['an unknown command', ['frobnicate', '--json'], /Unknown command/],
    ['an unknown plan', ['org', 'create', '--plan', 'gold', '--json'], /--plan/],
    ['an unknown limit name', ['org', 'create', '--plan', 'custom', '--limit', 'speed=3', '--json'], /--limit/],
    [
      'a negotiated limit on a Team organization',
      ['org', 'create', '--plan', 'team', '--limit', 'webhook_endpoints=5', '--json'],
      /Custom/,
    ],
    [
      'a clip cap above the 10 a split job may ask for',
      ['org', 'create', '--plan', 'custom', '--limit', 'max_clips_per_split_job=11', '--json'],
      /max_clips_per_split_job cannot exceed 10/,
    ],
    ['a negative balance', ['credits', 'set', '--org', '1', '--balance', '-4', '--json'], /--balance/],
    ['an unknown scope', ['key', 'create', '--org', '1', '--scopes', 'video:delete', '--json'], /scope/],
  ])(
    'fails as a usage error (exit status 2) with a message and the usage on stderr for %s',
    async (_, args, message) => {
      const result = await admin(...args);
      expect(result).toMatchObject({ code: 2, stdout: '' });
      expect(result.stderr).toMatch(message);
      expect(result.stderr).toMatch(/^Usage: npm run --silent admin -- /m);
    },
  );

  it('fails with exit status 1 and a message on stderr, without the usage, for a missing organization', async () => {
    const result = await admin('org', 'show', '--org', '999999', '--json');
    expect(result).toMatchObject({ code: 1, stdout: '', stderr: 'admin: Organization 999999 does not exist\n' });
  });

  it("negotiates a Custom organization's clip cap, which GET /me does not list among the limits", async () => {
    const created = await admin('org', 'create', '--plan', 'custom', '--limit', 'max_clips_per_split_job=8', '--json');
    expect(created.code).toBe(0);
    expect(json(created.stdout)).toMatchObject({
      negotiated_limits: { max_clips_per_split_job: 8 },
      max_clips_per_split_job: 8,
    });
    expect(json(created.stdout).limits).not.toHaveProperty('max_clips_per_split_job');
    const team = json((await admin('org', 'create', '--plan', 'team', '--json')).stdout);
    expect(team.max_clips_per_split_job).toBe(5);
  });

  it('refuses an eleventh active key for a Team organization', async () => {
    const org = json((await admin('org', 'create', '--plan', 'team', '--json')).stdout);
    // The ten keys the CLI must count, made by the function the CLI calls, without a process each.
    for (let index = 0; index < 10; index += 1) await createKeyWithoutCli(Number(org.organization_id));
    const eleventh = await admin('key', 'create', '--org', String(org.organization_id), '--json');
    expect(eleventh.code).not.toBe(0);
    expect(eleventh.stderr).toMatch(/10 active API keys/);
  });
});

describe('operator CLI help and usage, with no stack running', () => {
  let emptyDataDir: string;
  beforeAll(async () => {
    emptyDataDir = await mkdtemp(join(tmpdir(), 'admin-no-stack-'));
  });
  afterAll(() => rm(emptyDataDir, { recursive: true, force: true }));
  const adminWithoutStack = (...args: string[]) => runAdmin(emptyDataDir, args);

  it.each([[['--help']], [['help']], [['-h', '--json']]])(
    'prints the usage of every command to stdout and exits 0 for %j',
    async (args) => {
      const result = await adminWithoutStack(...args);
      expect(result).toMatchObject({ code: 0, stderr: '' });
      expect(result.stdout).toMatch(/^Usage: npm run --silent admin -- <command> \[options\] \[--json\]/);
      for (const command of ['org create', 'org list', 'key list', 'key revoke', 'migrate', 'endpoints']) {
        expect(result.stdout).toContain(`  ${command}`);
      }
    },
  );

  it.each([[['key', 'list', '--help']], [['help', 'key', 'list']]])(
    "prints one command's usage for %j",
    async (args) => {
      const result = await adminWithoutStack(...args);
      expect(result).toMatchObject({ code: 0, stderr: '' });
      expect(result.stdout).toMatch(/^Usage: npm run --silent admin -- key list --org N .*\n\n.*never their secrets/);
    },
  );

  it.each([
    ['an unknown command', ['frobnicate'], /^admin: Unknown command 'frobnicate'\./, /<command>/],
    ['no command', [], /^admin: No command given\./, /<command>/],
    ['an unknown option', ['org', 'list', '--colour', 'red'], /^admin: Unknown option '--colour'/, /<command>/],
    [
      'an option of another command',
      ['org', 'show', '--org', '1', '--plan', 'team'],
      /does not take --plan/,
      /org show --org N/,
    ],
    ['a missing option', ['key', 'list', '--json'], /^admin: key list needs --org\./, /key list --org N/],
    ['a page too large', ['org', 'list', '--page-size', '1001'], /--page-size must be at most 1000/, /org list/],
  ])(
    'exits 2 for %s, with the error and the usage on stderr, before looking for a stack',
    async (_, args, message, shownUsage) => {
      const result = await adminWithoutStack(...args);
      expect(result).toMatchObject({ code: 2, stdout: '' });
      expect(result.stderr).toMatch(message);
      expect(result.stderr).toMatch(new RegExp(`^Usage: npm run --silent admin -- ${shownUsage.source}`, 'm'));
    },
  );

  it('says plainly that no local stack runs in a data dir where none has started', async () => {
    const result = await adminWithoutStack('org', 'list', '--json');
    expect(result).toMatchObject({ code: 1, stdout: '' });
    expect(result.stderr).toMatch(
      new RegExp(`^admin: The local stack in ${emptyDataDir} is not running \\(no stack has started there`),
    );
  });
});

describe('operator CLI: org list', () => {
  type ListedOrganization = { organization_id: number; plan: string; api_access: boolean; credits_balance: number };
  const listPage = async (...args: string[]) => {
    const result = await admin('org', 'list', ...args, '--json');
    expect(result).toMatchObject({ code: 0, stderr: '' });
    return json(result.stdout) as { organizations: ListedOrganization[]; next_after: number | null };
  };

  it('lists every organization page by page, in id order, with its plan, credits, API access and creation', async () => {
    const team = json((await admin('org', 'create', '--plan', 'team', '--credits', '12', '--json')).stdout);
    const custom = json(
      (await admin('org', 'create', '--plan', 'custom', '--credits', '34', '--api-access', 'false', '--json')).stdout,
    );

    const listed: ListedOrganization[] = [];
    let after: number | null = 0;
    while (after !== null) {
      const page = await listPage('--after', String(after), '--page-size', '40');
      expect(page.organizations.length).toBeLessThanOrEqual(40);
      listed.push(...page.organizations);
      after = page.next_after;
    }
    const ids = listed.map((organization) => organization.organization_id);
    expect(ids).toEqual([...new Set(ids)].sort((left, right) => left - right));
    expect(listed).toContainEqual({
      organization_id: team.organization_id,
      plan: 'team',
      api_access: true,
      credits_balance: 12,
      active_api_keys: 0,
      created_at: team.created_at,
    });
    expect(listed).toContainEqual(
      expect.objectContaining({ organization_id: custom.organization_id, plan: 'custom', api_access: false }),
    );
  });

  it('starts a page after the given id and says where the next one starts', async () => {
    const first = json((await admin('org', 'create', '--plan', 'team', '--json')).stdout);
    await admin('org', 'create', '--plan', 'team', '--json');
    const page = await listPage('--after', String(Number(first.organization_id) - 1), '--page-size', '1');
    expect(page.organizations.map((organization) => organization.organization_id)).toEqual([first.organization_id]);
    expect(page.next_after).toBe(first.organization_id);
  });

  it('prints a table for a person, with the command for the next page', async () => {
    const created = json((await admin('org', 'create', '--plan', 'custom', '--credits', '56', '--json')).stdout);
    const after = Number(created.organization_id) - 1;
    const result = await admin('org', 'list', '--after', String(after), '--page-size', '1');
    expect(result.code).toBe(0);
    const [header, row, more] = result.stdout.trimEnd().split('\n');
    expect(header).toMatch(/^ORG\s+PLAN\s+API ACCESS\s+CREDITS\s+ACTIVE KEYS\s+CREATED$/);
    expect(row?.split(/\s+/)).toEqual([
      String(created.organization_id),
      'custom',
      'yes',
      '56',
      '0',
      created.created_at,
    ]);
    // Other tests create organizations too, so there may or may not be a next page.
    expect([undefined, `More: org list --after ${created.organization_id}`]).toContain(more);
  });
});

describe('operator CLI: key list', () => {
  type ListedKey = { key_prefix: string; status: string };

  it("lists an organization's keys oldest first, with environment, scopes and status, and never their secrets", async () => {
    const organizationId = String(
      json((await admin('org', 'create', '--plan', 'team', '--json')).stdout).organization_id,
    );
    const createKey = async (...options: string[]) =>
      json((await admin('key', 'create', '--org', organizationId, ...options, '--json')).stdout);
    const live = await createKey('--env', 'live', '--scopes', 'video:read,assets:read');
    const expired = await createKey('--expires-at', '2020-01-01T00:00:00Z');
    const revoked = await createKey();
    expect((await admin('key', 'revoke', '--key-prefix', String(revoked.key_prefix), '--json')).code).toBe(0);

    const jsonResult = await admin('key', 'list', '--org', organizationId, '--json');
    expect(jsonResult).toMatchObject({ code: 0, stderr: '' });
    expect(json(jsonResult.stdout)).toEqual({
      organization_id: Number(organizationId),
      api_keys: [
        {
          key_prefix: live.key_prefix,
          environment: 'live',
          scopes: ['video:read', 'assets:read'],
          status: 'active',
          created_at: live.created_at,
          expires_at: null,
          revoked_at: null,
        },
        expect.objectContaining({
          key_prefix: expired.key_prefix,
          environment: 'test',
          status: 'expired',
          expires_at: '2020-01-01T00:00:00.000Z',
        }),
        expect.objectContaining({ key_prefix: revoked.key_prefix, status: 'revoked', revoked_at: expect.any(String) }),
      ],
      next_after: null,
    });

    const textResult = await admin('key', 'list', '--org', organizationId);
    expect(textResult.code).toBe(0);
    expect(textResult.stdout).toMatch(
      new RegExp(`^${String(live.key_prefix)}\\s+live\\s+active\\s+video:read,assets:read\\s`, 'm'),
    );
    expect(textResult.stdout).toMatch(new RegExp(`^${String(revoked.key_prefix)}\\s+test\\s+revoked\\s+all\\s`, 'm'));
    for (const created of [live, expired, revoked]) {
      const { secret } = parseApiKey(String(created.key))!;
      for (const output of [jsonResult.stdout, textResult.stdout]) {
        expect(output).not.toContain(secret);
        expect(output).not.toContain(hashSecret(secret));
        expect(output).not.toMatch(/secret/i);
      }
    }
  });

  it('pages through the keys after a given key prefix', async () => {
    const organizationId = String(
      json((await admin('org', 'create', '--plan', 'team', '--json')).stdout).organization_id,
    );
    const prefixes: string[] = [];
    for (let index = 0; index < 3; index += 1) {
      prefixes.push(String(json((await admin('key', 'create', '--org', organizationId, '--json')).stdout).key_prefix));
    }
    const page = async (...args: string[]) =>
      json((await admin('key', 'list', '--org', organizationId, '--page-size', '2', ...args, '--json')).stdout) as {
        api_keys: ListedKey[];
        next_after: string | null;
      };
    const first = await page();
    expect(first.api_keys.map((apiKey) => apiKey.key_prefix)).toEqual(prefixes.slice(0, 2));
    expect(first.next_after).toBe(prefixes[1]);
    const second = await page('--after', first.next_after!);
    expect(second.api_keys.map((apiKey) => apiKey.key_prefix)).toEqual(prefixes.slice(2));
    expect(second.next_after).toBeNull();
  });

  it('fails with exit status 1 for an organization that does not exist', async () => {
    const result = await admin('key', 'list', '--org', '999999', '--json');
    expect(result).toMatchObject({ code: 1, stdout: '', stderr: 'admin: Organization 999999 does not exist\n' });
  });
});

describe('operator CLI: endpoints', () => {
  interface Endpoints {
    region: string;
    credentials: { access_key_id: string; secret_access_key: string };
    services: {
      dynamodb: { endpoint: string; table_name: string };
      s3: { endpoint: string; bucket_name: string };
      sqs: { endpoint: string; queue_urls: Record<string, string> };
      stepfunctions: { endpoint: string; state_machine_arns: Record<string, string> };
    };
  }

  /** What `endpoints --json` printed, each of the fields these tests read checked to be there. */
  function endpointsOf(stdout: string): Endpoints {
    const printed: unknown = JSON.parse(stdout);
    const at = (path: readonly string[]): unknown =>
      path.reduce<unknown>(
        (value, name) => (typeof value === 'object' && value !== null ? Reflect.get(value, name) : undefined),
        printed,
      );
    const text = (...path: string[]): string => {
      const value = at(path);
      if (typeof value !== 'string') throw new Error(`endpoints --json printed no ${path.join('.')}: ${stdout}`);
      return value;
    };
    const texts = (...path: string[]): Record<string, string> => {
      const value = at(path);
      if (typeof value !== 'object' || value === null) {
        throw new Error(`endpoints --json printed no ${path.join('.')}: ${stdout}`);
      }
      return Object.fromEntries(Object.keys(value).map((name) => [name, text(...path, name)]));
    };
    return {
      region: text('region'),
      credentials: {
        access_key_id: text('credentials', 'access_key_id'),
        secret_access_key: text('credentials', 'secret_access_key'),
      },
      services: {
        dynamodb: {
          endpoint: text('services', 'dynamodb', 'endpoint'),
          table_name: text('services', 'dynamodb', 'table_name'),
        },
        s3: { endpoint: text('services', 's3', 'endpoint'), bucket_name: text('services', 's3', 'bucket_name') },
        sqs: { endpoint: text('services', 'sqs', 'endpoint'), queue_urls: texts('services', 'sqs', 'queue_urls') },
        stepfunctions: {
          endpoint: text('services', 'stepfunctions', 'endpoint'),
          state_machine_arns: texts('services', 'stepfunctions', 'state_machine_arns'),
        },
      },
    };
  }

  it('prints endpoints, credentials and region that reach each emulator of the stack', async () => {
    const result = await admin('endpoints', '--json');
    expect(result).toMatchObject({ code: 0, stderr: '' });
    const { region, credentials, services } = endpointsOf(result.stdout);
    const client = {
      region,
      credentials: { accessKeyId: credentials.access_key_id, secretAccessKey: credentials.secret_access_key },
    };
    const dynamodb = new DynamoDBClient({ ...client, endpoint: services.dynamodb.endpoint });
    const s3 = new S3Client({ ...client, endpoint: services.s3.endpoint, forcePathStyle: true });
    const sqs = new SQSClient({ ...client, endpoint: services.sqs.endpoint });
    const sfn = new SFNClient({ ...client, endpoint: services.stepfunctions.endpoint });
    try {
      const { Table } = await dynamodb.send(new DescribeTableCommand({ TableName: services.dynamodb.table_name }));
      expect(Table?.TableStatus).toBe('ACTIVE');
      await expect(s3.send(new HeadBucketCommand({ Bucket: services.s3.bucket_name }))).resolves.toBeDefined();
      for (const queueUrl of Object.values(services.sqs.queue_urls)) {
        const { Attributes } = await sqs.send(
          new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] }),
        );
        expect(Attributes?.QueueArn).toBeDefined();
      }
      for (const stateMachineArn of Object.values(services.stepfunctions.state_machine_arns)) {
        const { executions } = await sfn.send(new ListExecutionsCommand({ stateMachineArn }));
        expect(executions).toEqual(expect.any(Array));
      }
    } finally {
      for (const each of [dynamodb, s3, sqs, sfn]) each.destroy();
    }
  });

  it('prints AWS CLI lines with those endpoints for a person', async () => {
    const { services } = endpointsOf((await admin('endpoints', '--json')).stdout);
    const result = await admin('endpoints');
    expect(result).toMatchObject({ code: 0, stderr: '' });
    const lines = result.stdout.split('\n');
    expect(lines).toContain(
      `aws --endpoint-url ${services.dynamodb.endpoint} dynamodb describe-table --table-name ${services.dynamodb.table_name}`,
    );
    expect(lines).toContain(
      'export AWS_ACCESS_KEY_ID=local AWS_SECRET_ACCESS_KEY=local AWS_REGION=us-east-1 AWS_DEFAULT_REGION=us-east-1',
    );
    expect(lines).toContainEqual(
      expect.stringMatching(new RegExp(`^export AWS_ENDPOINT_URL_DYNAMODB=${services.dynamodb.endpoint} `)),
    );
  });

  it("says that a deployed stack's endpoints are AWS's own", async () => {
    const deployed = { TABLE_NAME: 'video-api-deployed', AWS_REGION: 'eu-west-1' };
    const text = await runAdmin(process.env.IT_DATA_DIR!, ['endpoints'], deployed);
    expect(text).toMatchObject({ code: 0, stderr: '' });
    expect(text.stdout).toMatch(
      /^TABLE_NAME is set \(video-api-deployed\): a deployed stack, whose endpoints are AWS's own, in region eu-west-1\./,
    );
    const machine = await runAdmin(process.env.IT_DATA_DIR!, ['endpoints', '--json'], deployed);
    expect(json(machine.stdout)).toEqual({
      stack: 'deployed',
      table_name: 'video-api-deployed',
      region: 'eu-west-1',
      services: null,
    });
  });
});

describe('operator CLI against a stopped local stack', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await stackDataDir('admin-stopped-stack-');
  });
  afterAll(() => rm(dataDir, { recursive: true, force: true }));

  it('says plainly that the stack is not running, rather than failing to connect', async () => {
    await stopStackProcess(await startStackProcess(dataDir));
    // What the stopped stack left behind: its stack info, naming endpoints nothing listens on.
    await expect(readFile(join(dataDir, 'stack.json'), 'utf8')).resolves.toContain('AWS_ENDPOINT_URL_DYNAMODB');
    for (const args of [['org', 'list', '--json'], ['endpoints']]) {
      const result = await runAdmin(dataDir, args);
      expect(result).toMatchObject({ code: 1, stdout: '' });
      expect(result.stderr).toMatch(
        new RegExp(
          `^admin: The local stack in ${dataDir} is not running \\(its process \\d+ has ended\\); start it with npm start, or set TABLE_NAME for a deployed stack\\.\\n$`,
        ),
      );
    }
  }, 180_000);

  it("says so when the stack info's process lives but its /healthz does not answer", async () => {
    // This test's own process stands in for a pid the system gave to another program.
    const apiUrl = 'http://127.0.0.1:9/api/v1/developer';
    await writeFile(join(dataDir, 'stack.json'), JSON.stringify({ pid: process.pid, apiUrl, environment: {} }));
    const result = await runAdmin(dataDir, ['key', 'list', '--org', '1', '--json']);
    expect(result).toMatchObject({ code: 1, stdout: '' });
    expect(result.stderr).toMatch(
      /is not running \(http:\/\/127\.0\.0\.1:9\/healthz does not answer\); start it with npm start/,
    );
  });
});
