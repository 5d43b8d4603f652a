import { positiveNumberSetting, VIDEO_RENDER_DEADLINE_SECONDS, VIDEO_RENDER_POLL_SECONDS } from '#platform/settings';

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

/** The schedule the settings give, RENDER_SCHEDULE for what they leave out. */
export function renderScheduleFromSettings(): RenderSchedule {
  return {
    pollIntervalSeconds: positiveNumberSetting(VIDEO_RENDER_POLL_SECONDS, RENDER_SCHEDULE.pollIntervalSeconds),
    deadlineSeconds: positiveNumberSetting(VIDEO_RENDER_DEADLINE_SECONDS, RENDER_SCHEDULE.deadlineSeconds),
  };
}
