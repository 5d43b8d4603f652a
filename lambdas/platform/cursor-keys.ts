import {
  GetSecretValueCommand,
  ResourceNotFoundException,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { optionalSetting, CURSOR_KEY_LOCAL, CURSOR_KEY_SECRET_ARN } from './settings';

/**
 * The keys that sign list cursors. In AWS they are the versions of one Secrets Manager secret:
 * the current version signs, the current and the previous verify, so rotating the key (a new
 * version, `aws secretsmanager put-secret-value`) never breaks a cursor a client holds, and a
 * cursor outlives at most one rotation. The local stack passes one generated key in the
 * environment instead.
 */

export interface CursorKey {
  /** Goes into every cursor, so the right key verifies it. */
  readonly id: string;
  readonly secret: Buffer;
}

export interface CursorKeyRing {
  readonly signing: CursorKey;
  readonly verifying: readonly CursorKey[];
}

/** A rotation reaches every container within this long. */
const REFRESH_MS = 5 * 60_000;
let cached: { ring: CursorKeyRing; fetchedAtMs: number } | undefined;

let client: SecretsManagerClient | undefined;
/** One client per container, made on first use. */
const secretsManager = () => (client ??= new SecretsManagerClient({}));

async function secretVersion(secretArn: string, stage: 'AWSCURRENT' | 'AWSPREVIOUS'): Promise<CursorKey | undefined> {
  try {
    const { VersionId, SecretString } = await secretsManager().send(
      new GetSecretValueCommand({ SecretId: secretArn, VersionStage: stage }),
    );
    if (!VersionId || !SecretString) throw new Error(`The cursor key secret's ${stage} version has no value`);
    return { id: VersionId, secret: Buffer.from(SecretString, 'utf8') };
  } catch (error) {
    // A secret that was never rotated has no previous version.
    if (stage === 'AWSPREVIOUS' && error instanceof ResourceNotFoundException) return undefined;
    throw error;
  }
}

function localKey(value: string): CursorKey {
  const separator = value.indexOf(':');
  if (separator < 1) throw new Error(`${CURSOR_KEY_LOCAL.variable} must be <id>:<base64 secret>`);
  return { id: value.slice(0, separator), secret: Buffer.from(value.slice(separator + 1), 'base64') };
}

async function fetchRing(): Promise<CursorKeyRing> {
  const secretArn = optionalSetting(CURSOR_KEY_SECRET_ARN);
  if (secretArn) {
    const [current, previous] = await Promise.all([
      secretVersion(secretArn, 'AWSCURRENT'),
      secretVersion(secretArn, 'AWSPREVIOUS'),
    ]);
    if (!current) throw new Error('The cursor key secret has no current version');
    return { signing: current, verifying: previous ? [current, previous] : [current] };
  }
  const local = optionalSetting(CURSOR_KEY_LOCAL);
  if (!local) throw new Error(`Neither ${CURSOR_KEY_SECRET_ARN.variable} nor ${CURSOR_KEY_LOCAL.variable} is set`);
  const key = localKey(local);
  return { signing: key, verifying: [key] };
}

/** The key ring, read once per container and again every few minutes. */
export async function cursorKeyRing(nowMs = Date.now()): Promise<CursorKeyRing> {
  if (!cached || nowMs - cached.fetchedAtMs >= REFRESH_MS) {
    cached = { ring: await fetchRing(), fetchedAtMs: nowMs };
  }
  return cached.ring;
}
