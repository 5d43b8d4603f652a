import { REDACTED, redactText } from '#platform/redaction';
import { standardKeyOf } from './signature';

/**
 * What the delivery log keeps of a receiver's response body: its first 1 KB as text, with
 * anything that looks like a credential taken out. The log is shown to anyone holding a
 * `webhooks:read` key, which may be more people than those who run the receiver, and a receiver
 * that echoes its request, or fails with a stack trace and its environment, can answer with
 * secrets. Redaction is a net, not a promise: it takes out what has a recognizable shape.
 */

/** Bounded so that six attempts keep a delivery item far below DynamoDB's 400 KB. */
export const RESPONSE_EXCERPT_BYTES = 1024;

/**
 * A name whose value is a credential whatever it looks like, in JSON (`"api_key": "…"`), a form
 * or query (`token=…`) or a header line (`X-Session: …`).
 */
const CREDENTIAL_NAME = String.raw`[\w.-]*(?:secret|token|password|passwd|api[-_]?key|authorization|cookie|session|signature|credential)[\w.-]*`;
const QUOTED_CREDENTIAL = new RegExp(String.raw`("${CREDENTIAL_NAME}"\s*:\s*)"(?:[^"\\]|\\.)*"`, 'gi');
const UNQUOTED_CREDENTIAL = new RegExp(String.raw`(\b${CREDENTIAL_NAME}\s*[=:]\s*)(?!")[^\s&,;"'<>]+`, 'gi');
/** A JSON Web Token: three base64url parts, the first two JSON objects. */
const JWT = /\beyJ[\w-]*\.eyJ[\w-]*\.[\w-]*/g;

/** Every occurrence of `literal` replaced, whatever characters it holds. */
function withoutLiteral(text: string, literal: string): string {
  return literal.length === 0 ? text : text.split(literal).join(REDACTED);
}

/** The longest start of `text` whose UTF-8 encoding fits `bytes`, never cutting a character. */
function utf8Prefix(text: string, bytes: number): string {
  const encoded = Buffer.from(text, 'utf8');
  if (encoded.length <= bytes) return text;
  let end = bytes;
  // A continuation byte (10xxxxxx) belongs to the character started before it.
  while (end > 0 && ((encoded[end] ?? 0) & 0xc0) === 0x80) end -= 1;
  return encoded.subarray(0, end).toString('utf8');
}

/**
 * The ways a receiver may hold a signing secret: as issued, without its `whsec_` prefix, and in
 * standard base64 (not the same text for a secret issued in base64url, which a receiver converts
 * for Standard Webhooks libraries).
 */
function secretForms(secret: string): string[] {
  return [secret, secret.replace(/^whsec_/, ''), standardKeyOf(secret).toString('base64')];
}

/**
 * The excerpt of a response body, or undefined when it was empty. The endpoint's signing secrets
 * (two while one is rotated) are taken out wherever they appear, in any of their forms, then what
 * lambdas/platform/redaction.ts takes out of log lines, then the values of credential-named
 * fields and JWTs. Redacted before it is cut, so that no secret is left half recognizable.
 */
export function responseExcerpt(body: Buffer, signingSecrets: readonly string[]): string | undefined {
  if (body.length === 0) return undefined;
  const text = signingSecrets
    .flatMap(secretForms)
    .reduce((current, form) => withoutLiteral(current, form), body.toString('utf8'));
  const redacted = redactText(text)
    .replace(QUOTED_CREDENTIAL, (_, name: string) => `${name}"${REDACTED}"`)
    .replace(UNQUOTED_CREDENTIAL, (_, name: string) => `${name}${REDACTED}`)
    .replace(JWT, REDACTED);
  return utf8Prefix(redacted, RESPONSE_EXCERPT_BYTES);
}
