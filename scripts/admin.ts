/**
 * Operator CLI: organizations, plans, negotiated limits, credits and API keys, the data migration,
 * and a manual run of webhook retries.
 * Against the local stack by default (found through LOCAL_DATA_DIR); against a deployed stack
 * when TABLE_NAME is set (with the usual AWS credentials and region).
 */
import { parseArgs } from 'node:util';
import { readStackInfo } from '../local/stack-info';
import { SCOPES, type Scope } from '#domain/access/scopes';
// Types only: the modules themselves load after connect(), because their AWS clients read the
// endpoints from the environment when they are created.
import type { Environment } from '#domain/access/api-keys';
import type { NegotiatedLimits, Organization, Plan } from '#domain/access/organizations';

class UsageError extends Error {}

const USAGE = `Usage: npm run --silent admin -- <command> [options] [--json]
  org create --plan team|custom|pro [--credits N] [--limit NAME=VALUE]... [--api-access true|false]
  org update --org N [--plan P] [--limit NAME=VALUE]... [--api-access true|false]
  org show --org N
  key create --org N [--env test|live] [--scopes all|s1,s2] [--expires-at ISO-8601]
  key revoke --key-prefix P
  credits set --org N --balance N
  migrate            (tracks jobs written before the job list and usage aggregates: docs/data-model.md)
  webhooks retry     (relays events not yet relayed and attempts every pending delivery now: docs/webhooks.md)`;

async function connect() {
  if (process.env.TABLE_NAME) return;
  const dataDir = process.env.LOCAL_DATA_DIR ?? '.local';
  const info = await readStackInfo(dataDir);
  if (!info) {
    throw new Error(
      `No local stack found in ${dataDir} (start it with npm start), and TABLE_NAME is not set for a deployed stack.`,
    );
  }
  Object.assign(process.env, info.environment);
}

function positiveInteger(name: string, value: string | undefined, { allowZero = false } = {}): number {
  const number = Number(value);
  if (value === undefined || !/^\d+$/.test(value) || (!allowZero && number === 0) || !Number.isSafeInteger(number)) {
    throw new UsageError(
      `--${name} must be a ${allowZero ? 'non-negative' : 'positive'} integer, got ${value ?? 'nothing'}`,
    );
  }
  return number;
}

function booleanFlag(name: string, value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  if (value !== 'true' && value !== 'false') throw new UsageError(`--${name} must be true or false`);
  return value === 'true';
}

async function run(argv: string[]): Promise<Record<string, unknown>> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      json: { type: 'boolean' },
      plan: { type: 'string' },
      credits: { type: 'string' },
      limit: { type: 'string', multiple: true },
      'api-access': { type: 'string' },
      org: { type: 'string' },
      env: { type: 'string' },
      scopes: { type: 'string' },
      'expires-at': { type: 'string' },
      'key-prefix': { type: 'string' },
      balance: { type: 'string' },
    },
  });
  const command = positionals.join(' ');
  const known = [
    'org create',
    'org update',
    'org show',
    'key create',
    'key revoke',
    'credits set',
    'migrate',
    'webhooks retry',
  ];
  if (!known.includes(command)) throw new UsageError(`Unknown command '${command}'.\n${USAGE}`);

  await connect();
  const organizations = await import('#domain/access/organizations');
  const apiKeys = await import('#domain/access/api-keys');

  const plan = (): Plan | undefined => {
    if (values.plan === undefined) return undefined;
    if (!(organizations.PLANS as readonly string[]).includes(values.plan)) {
      throw new UsageError(`--plan must be one of ${organizations.PLANS.join(', ')}`);
    }
    return values.plan as Plan;
  };
  const limits = () => {
    const parsed: NegotiatedLimits = {};
    for (const pair of values.limit ?? []) {
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
  const describeOrganization = (organization: Organization) => ({
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
  const organizationId = () => positiveInteger('org', values.org);

  switch (command) {
    case 'org create': {
      const chosenPlan = plan();
      if (!chosenPlan) throw new UsageError('--plan is required');
      const negotiatedLimits = limits();
      if (Object.keys(negotiatedLimits).length > 0 && chosenPlan !== 'custom') {
        throw new UsageError('--limit sets negotiated limits, which only Custom organizations have');
      }
      const organization = await organizations.createOrganization({
        plan: chosenPlan,
        credits: values.credits === undefined ? 0 : positiveInteger('credits', values.credits, { allowZero: true }),
        apiAccess: booleanFlag('api-access', values['api-access']),
        negotiatedLimits,
      });
      return describeOrganization(organization);
    }
    case 'org update': {
      const id = organizationId();
      const negotiatedLimits = limits();
      const current = await organizations.getOrganization(id);
      if (!current) throw new Error(`Organization ${id} does not exist`);
      if (Object.keys(negotiatedLimits).length > 0 && (plan() ?? current.plan) !== 'custom') {
        throw new UsageError('--limit sets negotiated limits, which only Custom organizations have');
      }
      const updated = await organizations.updateOrganization(id, {
        plan: plan(),
        apiAccess: booleanFlag('api-access', values['api-access']),
        negotiatedLimits,
      });
      return describeOrganization(updated);
    }
    case 'org show': {
      const id = organizationId();
      const organization = await organizations.getOrganization(id);
      if (!organization) throw new Error(`Organization ${id} does not exist`);
      return describeOrganization(organization);
    }
    case 'key create': {
      const environment = values.env ?? 'test';
      if (!(apiKeys.ENVIRONMENTS as readonly string[]).includes(environment))
        throw new UsageError('--env must be test or live');
      const scopeList =
        values.scopes === undefined || values.scopes === 'all'
          ? [...SCOPES]
          : values.scopes.split(',').map((scope) => scope.trim());
      const unknown = scopeList.filter((scope) => !(SCOPES as readonly string[]).includes(scope));
      if (unknown.length) throw new UsageError(`Unknown scope(s): ${unknown.join(', ')}. Scopes: ${SCOPES.join(', ')}`);
      const expiresAt = values['expires-at'];
      if (expiresAt !== undefined && Number.isNaN(Date.parse(expiresAt)))
        throw new UsageError('--expires-at must be an ISO-8601 date-time');
      const { key, apiKey } = await apiKeys.createApiKey({
        organizationId: organizationId(),
        environment: environment as Environment,
        scopes: scopeList as Scope[],
        expiresAt: expiresAt === undefined ? undefined : new Date(expiresAt).toISOString(),
      });
      return {
        key,
        key_prefix: apiKey.keyPrefix,
        organization_id: apiKey.organizationId,
        environment: apiKey.environment,
        scopes: apiKey.scopes,
        created_at: apiKey.createdAt,
        expires_at: apiKey.expiresAt,
      };
    }
    case 'key revoke': {
      const prefix = values['key-prefix'];
      if (!prefix) throw new UsageError('--key-prefix is required');
      const apiKey = await apiKeys.revokeApiKey(prefix);
      return {
        key_prefix: apiKey.keyPrefix,
        organization_id: apiKey.organizationId,
        status: apiKey.status,
        revoked_at: apiKey.revokedAt,
      };
    }
    case 'credits set': {
      const organization = await organizations.setCreditBalance(
        organizationId(),
        positiveInteger('balance', values.balance, { allowZero: true }),
      );
      return { organization_id: organization.organizationId, credits_balance: organization.creditsBalance };
    }
    case 'migrate': {
      const { trackUntrackedJobs } = await import('#domain/jobs/job-migration');
      const report = await trackUntrackedJobs();
      return { jobs_examined: report.examined, jobs_tracked: report.tracked };
    }
    case 'webhooks retry': {
      const { deliveryEnabled } = await import('#domain/webhooks/delivery-settings');
      if (!deliveryEnabled()) {
        throw new Error(
          'Webhook delivery is switched off (DEVELOPER_WEBHOOK_DELIVERY_ENABLED is not true): nothing would be sent.',
        );
      }
      const { sweepOutbox } = await import('#domain/webhooks/outbox');
      const swept = await sweepOutbox({ overdueSeconds: 0, retryNow: true });
      return { events_relayed: swept.relayedEvents, deliveries_queued: swept.queuedDeliveries };
    }
  }
  throw new UsageError(USAGE);
}

const argv = process.argv.slice(2);
run(argv)
  .then((result) => {
    if (argv.includes('--json')) console.log(JSON.stringify(result));
    else
      for (const [name, value] of Object.entries(result))
        console.log(`${name}: ${typeof value === 'object' ? JSON.stringify(value) : value}`);
  })
  .catch((error: unknown) => {
    console.error(`admin: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(error instanceof UsageError ? 2 : 1);
  });
