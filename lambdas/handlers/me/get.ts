import { apiHandler } from '../../http/api-handler';
import { describeApiContext } from '../../domain/api-context';

export const handler = apiHandler('getMe', async ({ caller }) => ({ status: 200, body: describeApiContext(caller) }));
