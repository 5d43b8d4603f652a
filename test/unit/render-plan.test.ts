import fc from 'fast-check';
import { LUMA_RAY2, NOVA_REEL_1_1, type VideoCapabilities } from '#domain/models/model-registry';
import { renderPlan } from '#domain/video-jobs/render-plan';

describe('renderPlan', () => {
  it.each([
    [5, [5]],
    [10, [9, 5]],
    [15, [9, 9]],
  ])('makes a %i s job from Ray2 renders of %j s, the cheapest chain long enough', (duration, plan) => {
    expect(renderPlan(LUMA_RAY2.renders, duration)).toEqual(plan);
  });

  it.each([
    [5, [6]],
    [10, [12]],
    [15, [18]],
  ])('makes a %i s job from one Nova Reel render of %j s: it cannot chain', (duration, plan) => {
    expect(renderPlan(NOVA_REEL_1_1.renders, duration)).toEqual(plan);
  });

  it('refuses a length that four of the longest renders cannot make, rather than a short video', () => {
    expect(() => renderPlan({ ...LUMA_RAY2.renders, renderSeconds: [2, 3] }, 15)).toThrow(
      /No chain of up to 4 renders/,
    );
  });

  it('never leaves a chained job short, counting the frame each join drops, and never pays for a render it does not need', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 2, max: 10 }), { minLength: 1, maxLength: 3 }),
        fc.constantFrom(5, 10, 15),
        fc.constantFrom(24, 25, 30),
        (lengths, duration, fps) => {
          const capabilities: VideoCapabilities = {
            ...LUMA_RAY2.renders,
            renderSeconds: [...lengths].sort((a, b) => a - b),
            fps,
          };
          fc.pre(4 * Math.max(...lengths) * fps - 3 >= duration * fps);
          const plan = renderPlan(capabilities, duration);
          const frames = plan.reduce((sum, seconds) => sum + seconds * fps, 0) - (plan.length - 1);
          expect(frames).toBeGreaterThanOrEqual(duration * fps);
          // Leaving out its last render would leave the job short: each render is needed.
          const framesWithoutLast = plan.length > 1 ? frames - plan.at(-1)! * fps + 1 : 0;
          expect(framesWithoutLast).toBeLessThan(duration * fps);
        },
      ),
    );
  });
});
