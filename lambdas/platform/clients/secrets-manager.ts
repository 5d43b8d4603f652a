import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';

/** One client per container. */
export const secretsManager = new SecretsManagerClient({});
