/**
 * How the video job state machine paces a render: how often it polls the provider, and how long
 * a render may run before its job is `expired` and refunded. The deployed workers get these
 * values (lib/constructs/workflow.ts); the local stack sets its own, faster ones.
 */
export interface RenderSchedule {
  pollIntervalSeconds: number;
  deadlineSeconds: number;
}

/**
 * A 6 s Nova Reel shot takes about 90 s, so polling every 15 s adds at most a few seconds to a
 * finished video for a handful of state transitions; a render still running after 30 minutes
 * (the longest, 18 s, take a few minutes) is not coming back.
 */
export const RENDER_SCHEDULE: RenderSchedule = { pollIntervalSeconds: 15, deadlineSeconds: 1800 };

export const RENDER_SCHEDULE_ENVIRONMENT = {
  pollIntervalSeconds: 'VIDEO_RENDER_POLL_SECONDS',
  deadlineSeconds: 'VIDEO_RENDER_DEADLINE_SECONDS',
} as const satisfies Record<keyof RenderSchedule, string>;

/** The schedule the environment sets, RENDER_SCHEDULE for what it leaves out. */
export function renderScheduleFromEnvironment(environment: NodeJS.ProcessEnv = process.env): RenderSchedule {
  const read = (name: keyof RenderSchedule) => {
    const value = environment[RENDER_SCHEDULE_ENVIRONMENT[name]];
    if (value === undefined) return RENDER_SCHEDULE[name];
    const seconds = Number(value);
    if (!(seconds > 0))
      throw new Error(`${RENDER_SCHEDULE_ENVIRONMENT[name]} must be a positive number of seconds, got "${value}"`);
    return seconds;
  };
  return { pollIntervalSeconds: read('pollIntervalSeconds'), deadlineSeconds: read('deadlineSeconds') };
}
