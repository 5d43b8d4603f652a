import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { DecryptCommand, GenerateDataKeyCommand, KMSClient } from '@aws-sdk/client-kms';
import { optionalSetting, WEBHOOK_SECRETS_KEY_ARN, WEBHOOK_SECRETS_LOCAL_KEY } from '#platform/settings';

/**
 * Envelope encryption of endpoints' signing secrets. Each secret is encrypted with AES-256-GCM
 * under a data key of its own; the data key is kept only wrapped: by KMS in AWS (GenerateDataKey,
 * Decrypt), by a local key on the local stack. Both bind the wrapped key to its endpoint (the
 * encryption context in KMS, the additional authenticated data locally), so a sealed secret copied
 * onto another endpoint's item does not open. The table never holds a secret or a data key in
 * the clear, and reading the table alone is not enough to sign as the service.
 */

export interface SealedSecret {
  /** The data key, wrapped (a KMS ciphertext blob, or locally `iv ‖ tag ‖ ciphertext`), base64. */
  wrapped_key: string;
  /** `local` when wrapped by the local key; absent for KMS. */
  key_source?: 'local';
  iv: string;
  tag: string;
  ciphertext: string;
}

/** Whose secret it is; the binding of the wrapped key. */
export interface SecretOwner {
  organizationId: number;
  webhookId: string;
}

interface DataKey {
  plaintext: Buffer;
  wrapped: Buffer;
}

const encryptionContext = (owner: SecretOwner) => ({
  organization_id: String(owner.organizationId),
  webhook_id: owner.webhookId,
});

let client: KMSClient | undefined;
/** One client per container, made on first use. */
const kms = () => (client ??= new KMSClient({}));

function localKey(): Buffer | undefined {
  const value = optionalSetting(WEBHOOK_SECRETS_LOCAL_KEY);
  if (!value) return undefined;
  const key = Buffer.from(value, 'base64');
  if (key.length !== 32) throw new Error(`${WEBHOOK_SECRETS_LOCAL_KEY.variable} must be 32 bytes in base64`);
  return key;
}

function kmsKeyArn(): string {
  const arn = optionalSetting(WEBHOOK_SECRETS_KEY_ARN);
  if (!arn) {
    throw new Error(`Neither ${WEBHOOK_SECRETS_KEY_ARN.variable} nor ${WEBHOOK_SECRETS_LOCAL_KEY.variable} is set`);
  }
  return arn;
}

function gcmSeal(key: Buffer, plaintext: Buffer, additionalData: Buffer) {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(additionalData);
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return { iv, tag: cipher.getAuthTag(), ciphertext };
}

function gcmOpen(key: Buffer, sealed: { iv: Buffer; tag: Buffer; ciphertext: Buffer }, additionalData: Buffer) {
  const decipher = createDecipheriv('aes-256-gcm', key, sealed.iv);
  decipher.setAAD(additionalData);
  decipher.setAuthTag(sealed.tag);
  return Buffer.concat([decipher.update(sealed.ciphertext), decipher.final()]);
}

const ownerBinding = (owner: SecretOwner) => Buffer.from(JSON.stringify(encryptionContext(owner)), 'utf8');

async function newDataKey(owner: SecretOwner): Promise<DataKey & { source?: 'local' }> {
  const local = localKey();
  if (local) {
    const plaintext = randomBytes(32);
    const { iv, tag, ciphertext } = gcmSeal(local, plaintext, ownerBinding(owner));
    return { plaintext, wrapped: Buffer.concat([iv, tag, ciphertext]), source: 'local' };
  }
  const { Plaintext, CiphertextBlob } = await kms().send(
    new GenerateDataKeyCommand({ KeyId: kmsKeyArn(), KeySpec: 'AES_256', EncryptionContext: encryptionContext(owner) }),
  );
  if (!Plaintext || !CiphertextBlob) throw new Error('KMS GenerateDataKey returned no key');
  return { plaintext: Buffer.from(Plaintext), wrapped: Buffer.from(CiphertextBlob) };
}

async function unwrapDataKey(sealed: SealedSecret, owner: SecretOwner): Promise<Buffer> {
  const wrapped = Buffer.from(sealed.wrapped_key, 'base64');
  if (sealed.key_source === 'local') {
    const local = localKey();
    if (!local) throw new Error(`A locally sealed secret needs ${WEBHOOK_SECRETS_LOCAL_KEY.variable}`);
    return gcmOpen(
      local,
      { iv: wrapped.subarray(0, 12), tag: wrapped.subarray(12, 28), ciphertext: wrapped.subarray(28) },
      ownerBinding(owner),
    );
  }
  const { Plaintext } = await kms().send(
    new DecryptCommand({ CiphertextBlob: wrapped, KeyId: kmsKeyArn(), EncryptionContext: encryptionContext(owner) }),
  );
  if (!Plaintext) throw new Error('KMS Decrypt returned no key');
  return Buffer.from(Plaintext);
}

export async function sealSecret(secret: string, owner: SecretOwner): Promise<SealedSecret> {
  const dataKey = await newDataKey(owner);
  const { iv, tag, ciphertext } = gcmSeal(dataKey.plaintext, Buffer.from(secret, 'utf8'), ownerBinding(owner));
  dataKey.plaintext.fill(0);
  return {
    wrapped_key: dataKey.wrapped.toString('base64'),
    ...(dataKey.source ? { key_source: dataKey.source } : {}),
    iv: iv.toString('base64'),
    tag: tag.toString('base64'),
    ciphertext: ciphertext.toString('base64'),
  };
}

/**
 * Opened secrets are kept for a few minutes per container, so a burst of deliveries to one
 * endpoint costs one KMS call, not one per attempt. Keyed by the wrapped key, which changes
 * whenever the secret does.
 */
const OPENED_TTL_MS = 5 * 60_000;
const OPENED_MAX = 1000;
const opened = new Map<string, { secret: string; untilMs: number }>();

export async function openSecret(sealed: SealedSecret, owner: SecretOwner, nowMs = Date.now()): Promise<string> {
  const cacheKey = `${owner.organizationId}:${owner.webhookId}:${sealed.wrapped_key}`;
  const hit = opened.get(cacheKey);
  if (hit && hit.untilMs > nowMs) return hit.secret;
  const dataKey = await unwrapDataKey(sealed, owner);
  const secret = gcmOpen(
    dataKey,
    {
      iv: Buffer.from(sealed.iv, 'base64'),
      tag: Buffer.from(sealed.tag, 'base64'),
      ciphertext: Buffer.from(sealed.ciphertext, 'base64'),
    },
    ownerBinding(owner),
  ).toString('utf8');
  dataKey.fill(0);
  if (opened.size >= OPENED_MAX) opened.clear();
  opened.set(cacheKey, { secret, untilMs: nowMs + OPENED_TTL_MS });
  return secret;
}
