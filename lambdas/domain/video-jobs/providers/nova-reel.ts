import type { DurationSeconds } from './port';

/**
 * What Amazon Nova Reel delivers for a request: 1280x720 at 24 fps, in shots of 6 s, so the
 * nearest length at or above the one asked for. The Bedrock adapter asks for it, the local
 * renderer makes the same shape, and the finishing step (video-finishing.ts) turns it into what
 * the job asked for.
 */
export const NOVA_REEL_FRAME = { width: 1280, height: 720, fps: 24, dimension: '1280x720' } as const;
export const NOVA_REEL_SHOT_SECONDS = 6;
export const NOVA_REEL_SHOTS: Record<DurationSeconds, number> = { 5: 1, 10: 2, 15: 3 };

export interface ModelOutput {
  width: number;
  height: number;
  fps: number;
  durationSeconds: number;
}

export function novaReelOutput(durationSeconds: DurationSeconds): ModelOutput {
  const { width, height, fps } = NOVA_REEL_FRAME;
  return { width, height, fps, durationSeconds: NOVA_REEL_SHOTS[durationSeconds] * NOVA_REEL_SHOT_SECONDS };
}
