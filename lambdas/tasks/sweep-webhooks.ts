import { sweepOutbox } from '#domain/webhooks/outbox';
import { SWEEP_SCHEDULE } from '#domain/webhooks/sweep-schedule';
import { taskHandler } from '#platform/invocation';

export const handler = taskHandler('sweep-webhooks', () =>
  sweepOutbox({ overdueSeconds: SWEEP_SCHEDULE.overdueSeconds }),
);
