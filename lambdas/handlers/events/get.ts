import { operation } from '#contract/operations/getEvent';
import { getEvent } from '#domain/events/event-list';
import { apiHandler } from '#http/api-handler';

export const handler = apiHandler(operation, async ({ caller, pathParameters }) => ({
  status: 200,
  body: await getEvent(caller.organization.organizationId, pathParameters.id),
}));
