import type { JobError } from './job';

/** Why a job ended without a result, for the endings every job type shares. Messages are shown to end users. */
export const JOB_ERRORS = {
  startFailed: { code: 'START_FAILED', message: 'The job could not be started; its credits were refunded.' },
  timedOut: {
    code: 'JOB_TIMED_OUT',
    message: 'The job did not finish in time; it expired and its credits were refunded.',
  },
  cancelled: {
    code: 'JOB_CANCELLED',
    message: 'The job was cancelled; the credits of its unfinished work were refunded.',
  },
  deadlineExceeded: {
    code: 'JOB_DEADLINE_EXCEEDED',
    message:
      'The job did not end within its deadline_seconds; it expired and the credits of its unfinished work were refunded.',
  },
  internal: {
    code: 'INTERNAL_ERROR',
    message: 'The job failed because of an internal error; its credits were refunded.',
  },
} as const satisfies Record<string, JobError>;
