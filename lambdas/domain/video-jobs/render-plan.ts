import type { VideoCapabilities } from '#domain/models/model-registry';

/**
 * How a video job's length is made from a model's renders. A model whose renders can start from
 * an image (Luma Ray2) makes a longer video as a chain: each render after the first starts from
 * the previous one's last frame, and the finishing step drops that repeated first frame at each
 * join (video-finishing.ts). So a chain of renders of n1, n2, … frames holds n1 + n2 + … − (renders
 * − 1) distinct frames, and the plan is the cheapest chain holding at least the job's frames,
 * counted at the renders' nominal length: a render that delivers a frame more is trimmed, one that
 * delivers less would leave the job short. A model that cannot chain makes the length in one
 * render, the shortest that is long enough.
 */

/** Longer chains wait on more renders one after the other; four covers 15 s from 5 s renders. */
const MAX_CHAINED_RENDERS = 4;

/** The render lengths, in seconds and in order, that make a video of `durationSeconds`. */
export function renderPlan(capabilities: VideoCapabilities, durationSeconds: number): number[] {
  const { renderSeconds, fps, chaining } = capabilities;
  const framesNeeded = durationSeconds * fps;
  if (!chaining) {
    const single = renderSeconds.find((seconds) => seconds * fps >= framesNeeded);
    if (single === undefined)
      throw new Error(`No single render of ${renderSeconds.join(', ')} s makes ${durationSeconds} s`);
    return [single];
  }
  let best: number[] | undefined;
  const cost = (plan: readonly number[]) => plan.reduce((sum, seconds) => sum + seconds, 0);
  const better = (plan: number[]) =>
    !best || cost(plan) < cost(best) || (cost(plan) === cost(best) && plan.length < best.length);
  const extend = (plan: number[]) => {
    const frames = plan.reduce((sum, seconds) => sum + seconds * fps, 0) - (plan.length - 1);
    if (plan.length > 0 && frames >= framesNeeded) {
      if (better(plan)) best = plan;
      return;
    }
    if (plan.length === MAX_CHAINED_RENDERS) return;
    // Longest first: the chain opens on the longest stretch of one render, with the fewest joins early on.
    const longestSoFar = plan.at(-1) ?? Infinity;
    for (const seconds of renderSeconds) if (seconds <= longestSoFar) extend([...plan, seconds]);
  };
  extend([]);
  if (!best) throw new Error(`No chain of up to ${MAX_CHAINED_RENDERS} renders makes ${durationSeconds} s`);
  return best;
}
