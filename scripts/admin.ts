/**
 * Operator CLI: organizations, plans, negotiated limits, credits and API keys, the data migration,
 * a manual run of webhook retries, and the local emulators' endpoints.
 * Against the local stack by default (found through LOCAL_DATA_DIR); against a deployed stack
 * when TABLE_NAME is set (with the usual AWS credentials and region).
 * Exit status: 0 done (help included), 1 the command failed, 2 the command line is wrong.
 */
import { localDataDir, type StackInfo } from '../local/stack-info';
import { SCOPES, type Scope } from '#domain/access/scopes';
import { optionalSetting, flagSetting, DEVELOPER_WEBHOOK_DELIVERY_ENABLED, TABLE_NAME } from '#platform/settings';
// Types only: the modules themselves load after connect(), because their AWS clients read the
// endpoints from the environment when they are created.
import type { Environment } from '#domain/access/api-keys';
import type { NegotiatedLimits, Organization, Plan } from '#domain/access/organizations';
import {
  booleanOption,
  commandUsage,
  pageSize,
  parseCommandLine,
  positiveInteger,
  usage,
  UsageError,
  type CommandName,
  type OptionValues,
} from './admin/command-line';
import { describeDeployedEndpoints, describeLocalEndpoints, endpointsText } from './admin/endpoints';
import { findRunningLocalStack } from './admin/local-stack';
import { formatFields, formatTable } from './admin/text-output';

/** What a command prints: the JSON object with --json, the text otherwise. */
interface Output {
  json: Record<string, unknown>;
  text: string;
}

const fieldsOutput = (json: Record<string, unknown>): Output => ({ json, text: formatFields(json) });

type Stack = { kind: 'local'; dataDir: string; info: StackInfo } | { kind: 'deployed'; tableName: string };

/** Points this process at the local stack, which must be running; a deployed stack (TABLE_NAME set) needs nothing. */
async function connect(): Promise<Stack> {
  const deployedTable = optionalSetting(TABLE_NAME);
  if (deployedTable) return { kind: 'deployed', tableName: deployedTable };
  const dataDir = localDataDir();
  const info = await findRunningLocalStack(dataDir);
  Object.assign(process.env, info.environment);
  return { kind: 'local', dataDir, info };
}

async function loadDomain() {
  await connect();
  return {
    organizations: await import('#domain/access/organizations'),
    apiKeys: await import('#domain/access/api-keys'),
  };
}

const orNone = (value: string | null) => value ?? '-';

async function run(command: CommandName, options: OptionValues): Promise<Output> {
  const plan = (plans: readonly string[]): Plan | undefined => {
    if (options.plan === undefined) return undefined;
    if (!plans.includes(options.plan)) throw new UsageError(`--plan must be one of ${plans.join(', ')}`);
    return options.plan as Plan;
  };
  const limits = (organizations: typeof import('#domain/access/organizations')) => {
    const parsed: NegotiatedLimits = {};
    for (const pair of options.limit ?? []) {
      const [name, value] = pair.split('=');
      if (!name || !(organizations.NEGOTIABLE_NAMES as readonly string[]).includes(name)) {
        throw new UsageError(`--limit NAME must be one of ${organizations.NEGOTIABLE_NAMES.join(', ')}; got '${pair}'`);
      }
      const number = positiveInteger(`limit ${name}`, value);
      if (name === 'max_asset_upload_size_bytes' && number > organizations.MAX_SINGLE_UPLOAD_BYTES) {
        throw new UsageError(
          `max_asset_upload_size_bytes cannot exceed ${organizations.MAX_SINGLE_UPLOAD_BYTES} (the largest single S3 upload)`,
        );
      }
      if (name === organizations.MAX_CLIPS_SETTING && number > organizations.MAX_CLIPS_PER_SPLIT_JOB) {
        throw new UsageError(
          `${organizations.MAX_CLIPS_SETTING} cannot exceed ${organizations.MAX_CLIPS_PER_SPLIT_JOB} (the largest max_clips a request may give)`,
        );
      }
      parsed[name as keyof NegotiatedLimits] = number;
    }
    return parsed;
  };
  const describeOrganization = (
    organizations: typeof import('#domain/access/organizations'),
    organization: Organization,
  ) => ({
    organization_id: organization.organizationId,
    plan: organization.plan,
    api_access: organization.apiAccess,
    credits_balance: organization.creditsBalance,
    negotiated_limits: organization.negotiatedLimits,
    limits: organizations.effectiveLimits(organization),
    max_clips_per_split_job: organizations.maxClipsPerSplitJob(organization),
    active_api_keys: organization.activeApiKeys,
    active_video_jobs: organization.activeVideoJobs,
    active_split_jobs: organization.activeSplitJobs,
    created_at: organization.createdAt,
  });
  const organizationId = () => positiveInteger('org', options.org);

  switch (command) {
    case 'org create': {
      const apiAccess = booleanOption('api-access', options['api-access']);
      const credits =
        options.credits === undefined ? 0 : positiveInteger('credits', options.credits, { allowZero: true });
      const { organizations } = await loadDomain();
      const chosenPlan = plan(organizations.PLANS);
      if (!chosenPlan) throw new UsageError('--plan is required');
      const negotiatedLimits = limits(organizations);
      if (Object.keys(negotiatedLimits).length > 0 && chosenPlan !== 'custom') {
        throw new UsageError('--limit sets negotiated limits, which only Custom organizations have');
      }
      const organization = await organizations.createOrganization({
        plan: chosenPlan,
        credits,
        apiAccess,
        negotiatedLimits,
      });
      return fieldsOutput(describeOrganization(organizations, organization));
    }
    case 'org update': {
      const id = organizationId();
      const apiAccess = booleanOption('api-access', options['api-access']);
      const { organizations } = await loadDomain();
      const newPlan = plan(organizations.PLANS);
      const negotiatedLimits = limits(organizations);
      const current = await organizations.getOrganization(id);
      if (!current) throw new Error(`Organization ${id} does not exist`);
      if (Object.keys(negotiatedLimits).length > 0 && (newPlan ?? current.plan) !== 'custom') {
        throw new UsageError('--limit sets negotiated limits, which only Custom organizations have');
      }
      const updated = await organizations.updateOrganization(id, { plan: newPlan, apiAccess, negotiatedLimits });
      return fieldsOutput(describeOrganization(organizations, updated));
    }
    case 'org show': {
      const id = organizationId();
      const { organizations } = await loadDomain();
      const organization = await organizations.getOrganization(id);
      if (!organization) throw new Error(`Organization ${id} does not exist`);
      return fieldsOutput(describeOrganization(organizations, organization));
    }
    case 'org list': {
      const afterId = options.after === undefined ? 0 : positiveInteger('after', options.after, { allowZero: true });
      const size = pageSize(options['page-size']);
      const { organizations } = await loadDomain();
      const page = await organizations.listOrganizations({ afterId, pageSize: size });
      const listed = page.organizations.map((organization) => ({
        organization_id: organization.organizationId,
        plan: organization.plan,
        api_access: organization.apiAccess,
        credits_balance: organization.creditsBalance,
        active_api_keys: organization.activeApiKeys,
        created_at: organization.createdAt,
      }));
      const table = formatTable([
        ['ORG', 'PLAN', 'API ACCESS', 'CREDITS', 'ACTIVE KEYS', 'CREATED'],
        ...listed.map((organization) => [
          String(organization.organization_id),
          organization.plan,
          organization.api_access ? 'yes' : 'no',
          String(organization.credits_balance),
          String(organization.active_api_keys),
          organization.created_at,
        ]),
      ]);
      return {
        json: { organizations: listed, next_after: page.nextAfterId },
        text: [
          listed.length > 0 ? table : `No organizations after ${afterId}.`,
          ...(page.nextAfterId === null ? [] : [`More: org list --after ${page.nextAfterId}`]),
        ].join('\n'),
      };
    }
    case 'key create': {
      const id = organizationId();
      const environment = options.env ?? 'test';
      const scopeList =
        options.scopes === undefined || options.scopes === 'all'
          ? [...SCOPES]
          : options.scopes.split(',').map((scope) => scope.trim());
      const unknown = scopeList.filter((scope) => !(SCOPES as readonly string[]).includes(scope));
      if (unknown.length) throw new UsageError(`Unknown scope(s): ${unknown.join(', ')}. Scopes: ${SCOPES.join(', ')}`);
      const expiresAt = options['expires-at'];
      if (expiresAt !== undefined && Number.isNaN(Date.parse(expiresAt)))
        throw new UsageError('--expires-at must be an ISO-8601 date-time');
      const { apiKeys } = await loadDomain();
      if (!(apiKeys.ENVIRONMENTS as readonly string[]).includes(environment))
        throw new UsageError('--env must be test or live');
      const { key, apiKey } = await apiKeys.createApiKey({
        organizationId: id,
        environment: environment as Environment,
        scopes: scopeList as Scope[],
        expiresAt: expiresAt === undefined ? undefined : new Date(expiresAt).toISOString(),
      });
      return fieldsOutput({
        key,
        key_prefix: apiKey.keyPrefix,
        organization_id: apiKey.organizationId,
        environment: apiKey.environment,
        scopes: apiKey.scopes,
        created_at: apiKey.createdAt,
        expires_at: apiKey.expiresAt,
      });
    }
    case 'key list': {
      const id = organizationId();
      const size = pageSize(options['page-size']);
      const { organizations, apiKeys } = await loadDomain();
      if (!(await organizations.getOrganization(id))) throw new Error(`Organization ${id} does not exist`);
      const page = await apiKeys.listApiKeys({ organizationId: id, afterPrefix: options.after, pageSize: size });
      const now = new Date();
      const listed = page.apiKeys.map((apiKey) => ({
        key_prefix: apiKey.keyPrefix,
        environment: apiKey.environment,
        scopes: apiKey.scopes,
        status: apiKeys.keyStatus(apiKey, now),
        created_at: apiKey.createdAt,
        expires_at: apiKey.expiresAt,
        revoked_at: apiKey.revokedAt,
      }));
      const hasEveryScope = (scopes: readonly Scope[]) => SCOPES.every((scope) => scopes.includes(scope));
      const table = formatTable([
        ['KEY PREFIX', 'ENV', 'STATUS', 'SCOPES', 'CREATED', 'EXPIRES', 'REVOKED'],
        ...listed.map((apiKey) => [
          apiKey.key_prefix,
          apiKey.environment,
          apiKey.status,
          hasEveryScope(apiKey.scopes) ? 'all' : apiKey.scopes.join(','),
          apiKey.created_at,
          orNone(apiKey.expires_at),
          orNone(apiKey.revoked_at),
        ]),
      ]);
      return {
        json: { organization_id: id, api_keys: listed, next_after: page.nextAfterPrefix },
        text: [
          listed.length > 0
            ? table
            : `Organization ${id} has no API keys${options.after ? ` after ${options.after}` : ''}.`,
          ...(page.nextAfterPrefix === null ? [] : [`More: key list --org ${id} --after ${page.nextAfterPrefix}`]),
        ].join('\n'),
      };
    }
    case 'key revoke': {
      const prefix = options['key-prefix'];
      if (!prefix) throw new UsageError('--key-prefix must not be empty');
      const { apiKeys } = await loadDomain();
      const apiKey = await apiKeys.revokeApiKey(prefix);
      return fieldsOutput({
        key_prefix: apiKey.keyPrefix,
        organization_id: apiKey.organizationId,
        status: apiKey.status,
        revoked_at: apiKey.revokedAt,
      });
    }
    case 'credits set': {
      const id = organizationId();
      const balance = positiveInteger('balance', options.balance, { allowZero: true });
      const { organizations } = await loadDomain();
      const organization = await organizations.setCreditBalance(id, balance);
      return fieldsOutput({
        organization_id: organization.organizationId,
        credits_balance: organization.creditsBalance,
      });
    }
    case 'migrate': {
      await connect();
      const { trackUntrackedJobs } = await import('#domain/jobs/job-migration');
      const report = await trackUntrackedJobs();
      return fieldsOutput({ jobs_examined: report.examined, jobs_tracked: report.tracked });
    }
    case 'webhooks retry': {
      await connect();
      if (!flagSetting(DEVELOPER_WEBHOOK_DELIVERY_ENABLED)) {
        throw new Error(
          `Webhook delivery is switched off (${DEVELOPER_WEBHOOK_DELIVERY_ENABLED.variable} is not true): nothing would be sent.`,
        );
      }
      const { sweepOutbox } = await import('#domain/webhooks/outbox');
      const swept = await sweepOutbox({ overdueSeconds: 0, retryNow: true });
      return fieldsOutput({ events_relayed: swept.relayedEvents, deliveries_queued: swept.queuedDeliveries });
    }
    case 'endpoints': {
      const stack = await connect();
      const endpoints =
        stack.kind === 'local'
          ? describeLocalEndpoints(stack.info, stack.dataDir)
          : describeDeployedEndpoints(process.env, stack.tableName);
      return { json: { ...endpoints }, text: endpointsText(endpoints) };
    }
  }
}

function reportUsageError(error: UsageError, command: CommandName | undefined) {
  console.error(`admin: ${error.message}\n\n${command ? commandUsage(command) : usage()}`);
}

async function main(argv: readonly string[]): Promise<number> {
  const commandLine = parseCommandLine(argv);
  if ('help' in commandLine) {
    console.log(commandLine.help);
    return 0;
  }
  if ('error' in commandLine) {
    reportUsageError(commandLine.error, commandLine.command);
    return 2;
  }
  try {
    const output = await run(commandLine.command, commandLine.options);
    console.log(commandLine.json ? JSON.stringify(output.json) : output.text);
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      reportUsageError(error, commandLine.command);
      return 2;
    }
    console.error(`admin: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}

void main(process.argv.slice(2)).then((status) => {
  process.exitCode = status;
});
