import { call } from './support/stack';
import { runAdmin } from './support/stack-process';

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
    ['a missing organization', ['org', 'show', '--org', '999999', '--json'], /does not exist/],
  ])('fails with a message on stderr and nothing on stdout for %s', async (_, args, message) => {
    const result = await admin(...args);
    expect(result.code).not.toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(message);
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
    for (let index = 0; index < 10; index += 1) {
      expect((await admin('key', 'create', '--org', String(org.organization_id), '--json')).code).toBe(0);
    }
    const eleventh = await admin('key', 'create', '--org', String(org.organization_id), '--json');
    expect(eleventh.code).not.toBe(0);
    expect(eleventh.stderr).toMatch(/10 active API keys/);
  });
});
