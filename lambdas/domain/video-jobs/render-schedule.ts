import { positiveNumberSetting, VIDEO_RENDER_DEADLINE_SECONDS, VIDEO_RENDER_POLL_SECONDS } from '#platform/settings';

/**
 * How the video job state machine paces a render: how often it polls the provider, and how long
 * one render may run before its job is `expired` and refunded (each render of a chain has its own). The deployed workers get these
 * values (lib/constructs/workflow.ts); the local stack sets its own, faster ones.
 */
export interface RenderSchedule {
  pollIntervalSeconds: number;
  deadlineSeconds: number;
}

/**
 * Ray2 takes typically 2 to 5 minutes for a 5 s render and 4 to 8 for a 9 s one (Bedrock user
 * guide, "Luma AI models"), so polling every 15 s adds a few seconds to a finished video for a
 * handful of state transitions; a render still running after 20 minutes, more than twice the
 * slowest typical, is not coming back. Two chained renders then stay within the execution's hour.
 */
export const RENDER_SCHEDULE: RenderSchedule = { pollIntervalSeconds: 15, deadlineSeconds: 1200 };

/** The schedule the settings give, RENDER_SCHEDULE for what they leave out. */
export function renderScheduleFromSettings(): RenderSchedule {
  return {
    pollIntervalSeconds: positiveNumberSetting(VIDEO_RENDER_POLL_SECONDS, RENDER_SCHEDULE.pollIntervalSeconds),
    deadlineSeconds: positiveNumberSetting(VIDEO_RENDER_DEADLINE_SECONDS, RENDER_SCHEDULE.deadlineSeconds),
  };
}
