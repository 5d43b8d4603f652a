import {
  GetSecretValueCommand,
  ResourceNotFoundException,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { cursorKeyRing } from '#platform/cursor-keys';

const secrets = mockClient(SecretsManagerClient);
const ARN = 'arn:aws:secretsmanager:us-east-1:111111111111:secret:cursor-key';

/** The ring is cached for five minutes per container: each test reads it ten minutes after the last. */
let clock = 0;
const later = () => (clock += 10 * 60_000);

function versions(current: { id: string; value: string }, previous?: { id: string; value: string }) {
  secrets.on(GetSecretValueCommand, { SecretId: ARN, VersionStage: 'AWSCURRENT' }).resolves({
    VersionId: current.id,
    SecretString: current.value,
  });
  const previousStage = secrets.on(GetSecretValueCommand, { SecretId: ARN, VersionStage: 'AWSPREVIOUS' });
  if (previous) previousStage.resolves({ VersionId: previous.id, SecretString: previous.value });
  else previousStage.rejects(new ResourceNotFoundException({ message: 'no previous version', $metadata: {} }));
}

beforeEach(() => {
  secrets.reset();
  delete process.env.CURSOR_KEY_SECRET_ARN;
  delete process.env.CURSOR_KEY_LOCAL;
});

describe('the cursor key ring', () => {
  it('signs with the current version of the secret and verifies with the current and previous', async () => {
    process.env.CURSOR_KEY_SECRET_ARN = ARN;
    versions({ id: 'v2', value: 'two' }, { id: 'v1', value: 'one' });
    const ring = await cursorKeyRing(later());
    expect(ring.signing).toEqual({ id: 'v2', secret: Buffer.from('two') });
    expect(ring.verifying).toEqual([
      { id: 'v2', secret: Buffer.from('two') },
      { id: 'v1', secret: Buffer.from('one') },
    ]);
  });

  it('works with a secret never rotated', async () => {
    process.env.CURSOR_KEY_SECRET_ARN = ARN;
    versions({ id: 'v1', value: 'one' });
    const ring = await cursorKeyRing(later());
    expect(ring.verifying.map((key) => key.id)).toEqual(['v1']);
  });

  it('reads the secret once per container, and again after five minutes', async () => {
    process.env.CURSOR_KEY_SECRET_ARN = ARN;
    versions({ id: 'v1', value: 'one' });
    const start = later();
    await cursorKeyRing(start);
    await cursorKeyRing(start + 299_999);
    expect(secrets.commandCalls(GetSecretValueCommand)).toHaveLength(2);
    versions({ id: 'v2', value: 'two' }, { id: 'v1', value: 'one' });
    expect((await cursorKeyRing(start + 300_000)).signing.id).toBe('v2');
    expect(secrets.commandCalls(GetSecretValueCommand)).toHaveLength(4);
  });

  it('fails when reading the secret fails, rather than signing with nothing', async () => {
    process.env.CURSOR_KEY_SECRET_ARN = ARN;
    secrets.on(GetSecretValueCommand).rejects(new Error('AccessDenied'));
    await expect(cursorKeyRing(later())).rejects.toThrow('AccessDenied');
  });

  it('takes the local stack key from the environment, without Secrets Manager', async () => {
    process.env.CURSOR_KEY_LOCAL = `local-1:${Buffer.from('secret').toString('base64')}`;
    const ring = await cursorKeyRing(later());
    expect(ring).toEqual({
      signing: { id: 'local-1', secret: Buffer.from('secret') },
      verifying: [{ id: 'local-1', secret: Buffer.from('secret') }],
    });
    expect(secrets.calls()).toHaveLength(0);
  });

  it('fails clearly when neither is configured', async () => {
    await expect(cursorKeyRing(later())).rejects.toThrow(/CURSOR_KEY_SECRET_ARN nor CURSOR_KEY_LOCAL/);
  });
});
