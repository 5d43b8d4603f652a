import { sweepOutbox } from '#domain/webhooks/outbox';
import { SWEEP_SCHEDULE } from '#domain/webhooks/sweep-schedule';

export const handler = () => sweepOutbox({ overdueSeconds: SWEEP_SCHEDULE.overdueSeconds });
