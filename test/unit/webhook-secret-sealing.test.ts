import { randomBytes } from 'node:crypto';
import { DecryptCommand, GenerateDataKeyCommand, KMSClient } from '@aws-sdk/client-kms';
import { mockClient } from 'aws-sdk-client-mock';
import { openSecret, sealSecret } from '#domain/webhooks/secret-sealing';
import { WEBHOOK_SECRETS_KEY_ARN, WEBHOOK_SECRETS_LOCAL_KEY } from '#platform/settings';

process.env.AWS_REGION = 'us-east-1';
const kms = mockClient(KMSClient);
const owner = { organizationId: 7, webhookId: 'webhook_01J0000000000000000000000A' };
const SECRET = 'whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXNlYw';

afterEach(() => {
  kms.reset();
  delete process.env[WEBHOOK_SECRETS_LOCAL_KEY.variable];
  delete process.env[WEBHOOK_SECRETS_KEY_ARN.variable];
});

describe('sealing webhook signing secrets', () => {
  it('seals under a local key: nothing of the secret in the clear, opened only for its own endpoint', async () => {
    process.env[WEBHOOK_SECRETS_LOCAL_KEY.variable] = randomBytes(32).toString('base64');
    const sealed = await sealSecret(SECRET, owner);
    expect(JSON.stringify(sealed)).not.toContain(SECRET.slice(6, 20));
    expect(sealed.key_source).toBe('local');
    expect(await openSecret(sealed, owner)).toBe(SECRET);
    await expect(openSecret(sealed, { ...owner, webhookId: 'webhook_01J0000000000000000000000B' })).rejects.toThrow();
    await expect(openSecret(sealed, { ...owner, organizationId: 8 })).rejects.toThrow();
    const tampered = { ...sealed, ciphertext: Buffer.from('x'.repeat(40)).toString('base64') };
    await expect(openSecret(tampered, { ...owner, webhookId: 'webhook_01J0000000000000000000000C' })).rejects.toThrow();
  });

  it('wraps each data key with KMS under the endpoint as encryption context, and unwraps it once per few minutes', async () => {
    process.env[WEBHOOK_SECRETS_KEY_ARN.variable] = 'arn:aws:kms:us-east-1:111122223333:key/k';
    const dataKey = randomBytes(32);
    const wrapped = randomBytes(64);
    kms
      .on(GenerateDataKeyCommand)
      .resolves({ Plaintext: new Uint8Array(dataKey), CiphertextBlob: new Uint8Array(wrapped) });
    kms.on(DecryptCommand).resolves({ Plaintext: new Uint8Array(dataKey) });
    const context = { organization_id: '7', webhook_id: owner.webhookId };

    const sealed = await sealSecret(SECRET, owner);
    expect(sealed.wrapped_key).toBe(wrapped.toString('base64'));
    expect(kms.commandCalls(GenerateDataKeyCommand)[0]!.args[0].input).toMatchObject({
      KeyId: 'arn:aws:kms:us-east-1:111122223333:key/k',
      KeySpec: 'AES_256',
      EncryptionContext: context,
    });
    const now = Date.now();
    expect(await openSecret(sealed, owner, now)).toBe(SECRET);
    expect(await openSecret(sealed, owner, now + 60_000)).toBe(SECRET);
    expect(kms.commandCalls(DecryptCommand)).toHaveLength(1);
    expect(kms.commandCalls(DecryptCommand)[0]!.args[0].input).toMatchObject({ EncryptionContext: context });
    expect(await openSecret(sealed, owner, now + 6 * 60_000)).toBe(SECRET);
    expect(kms.commandCalls(DecryptCommand)).toHaveLength(2);
  });

  it('refuses to seal with no key configured', async () => {
    await expect(sealSecret(SECRET, owner)).rejects.toThrow(WEBHOOK_SECRETS_KEY_ARN.variable);
  });
});
