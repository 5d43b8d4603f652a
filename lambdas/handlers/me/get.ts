import { operation } from '#contract/operations/getMe';
import { describeApiContext } from '#domain/access/api-context';
import { apiHandler } from '#http/api-handler';

export const handler = apiHandler(operation, async ({ caller }) => ({ status: 200, body: describeApiContext(caller) }));
