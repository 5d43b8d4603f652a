import { fallbackHandler } from '#http/api-handler';
import { ApiError } from '#platform/errors';
import { API_PREFIX } from '#platform/api-prefix';
import { methodsAt } from '#routes';

export const handler = fallbackHandler(async ({ method, path }) => {
  const allowed = path.startsWith(API_PREFIX) ? methodsAt(path.slice(API_PREFIX.length)) : [];
  if (allowed.length > 0) {
    throw new ApiError('METHOD_NOT_ALLOWED', `${method} is not allowed here; use ${allowed.join(', ')}.`, {
      Allow: allowed.join(', '),
    });
  }
  throw new ApiError('ROUTE_NOT_FOUND', `No route matches ${method} ${path}.`);
});
