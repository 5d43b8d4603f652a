import type { Operations, RotatedWebhookEndpoint } from '#contract/types';
import type { Caller } from '#domain/access/authentication';
import { rotateEndpointSecret } from './endpoint-store';
import { webhookNotFound } from './endpoints';
import { presentWebhookEndpoint } from './presentation';
import { sealSecret } from './secret-sealing';
import { newSigningSecret } from './signature';

type RotateSecretRequest = Operations['rotateWebhookSecret']['body'];

/**
 * POST /webhooks/{id}/rotate-secret: a new secret, sealed like a new endpoint's and returned this
 * once; the one it replaces keeps signing beside it for the overlap asked for. Apart from the
 * endpoints routes so that only the two routes that seal secrets bundle a KMS client.
 */
export async function rotateWebhookSecret(
  caller: Caller,
  webhookId: string,
  request: RotateSecretRequest,
  now = new Date(),
): Promise<RotatedWebhookEndpoint> {
  const organizationId = caller.organization.organizationId;
  const secret = newSigningSecret();
  const previousSecretExpiresAt =
    request.overlap_seconds > 0 ? new Date(now.getTime() + request.overlap_seconds * 1000).toISOString() : null;
  const endpoint = await rotateEndpointSecret(
    organizationId,
    webhookId,
    await sealSecret(secret, { organizationId, webhookId }),
    previousSecretExpiresAt,
    now,
  );
  if (!endpoint) throw webhookNotFound(webhookId);
  return { ...presentWebhookEndpoint(endpoint), secret, previous_secret_expires_at: previousSecretExpiresAt };
}
