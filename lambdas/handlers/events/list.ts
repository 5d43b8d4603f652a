import { operation } from '#contract/operations/listEvents';
import { listEvents } from '#domain/events/event-list';
import { apiHandler } from '#http/api-handler';

export const handler = apiHandler(operation, async ({ caller, query }) => {
  const page = await listEvents(caller.organization.organizationId, query);
  return { status: 200, body: { data: page.payloads, pagination: { next_cursor: page.nextCursor } } };
});
