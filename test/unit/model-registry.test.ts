import {
  CLAUDE_HAIKU_5_5,
  DEFAULT_TEXT_MODEL_ID,
  DEFAULT_VIDEO_MODEL_ID,
  END_OF_LIFE_NOTICE_DAYS,
  LUMA_RAY2,
  MODEL_REGISTRY,
  NOVA_REEL_1_1,
  lifecycleVerdict,
  textModelById,
  videoModelById,
} from '#domain/models/model-registry';
import { OUTPUT_DIMENSIONS } from '#domain/video-jobs/providers/port';

describe('the model registry', () => {
  it('renders `model: "auto"` with Luma Ray2, which is Active and has no end of life announced', () => {
    expect(videoModelById(DEFAULT_VIDEO_MODEL_ID)).toBe(LUMA_RAY2);
    expect(LUMA_RAY2.lifecycle).toMatchObject({ status: 'ACTIVE' });
    expect(LUMA_RAY2.lifecycle.endOfLife).toBeUndefined();
    expect(lifecycleVerdict(LUMA_RAY2.lifecycle, new Date())).toEqual({ state: 'active' });
  });

  it('renders every ratio of the contract natively with Ray2, at the contract frame of 720p', () => {
    for (const [ratio, frame] of Object.entries(LUMA_RAY2.renders.frames)) {
      expect(frame).toEqual({ aspectRatio: ratio, ...OUTPUT_DIMENSIONS[ratio as keyof typeof OUTPUT_DIMENSIONS] });
    }
  });

  it('gives every video model a start-image frame its documented image bounds accept', () => {
    for (const model of MODEL_REGISTRY) {
      if (model.kind !== 'video') continue;
      const { minSide, maxSide } = model.renders.startImage;
      for (const frame of Object.values(model.renders.frames)) {
        expect(Math.min(frame.width, frame.height)).toBeGreaterThanOrEqual(minSide);
        expect(Math.max(frame.width, frame.height)).toBeLessThanOrEqual(maxSide);
      }
    }
  });

  it('names the source of every lifecycle and price, and a region for every video model', () => {
    for (const model of MODEL_REGISTRY) {
      expect(model.lifecycle.source).toMatch(/^https:\/\/docs\.aws\.amazon\.com\//);
      if (model.kind !== 'video') continue;
      expect(model.priceSource).toMatch(/^https:\/\/aws\.amazon\.com\/bedrock\/pricing\//);
      expect(model.regions.length).toBeGreaterThan(0);
      expect(model.pricePerOutputSecondUsd).toBeGreaterThan(0);
    }
  });

  it('refuses an id that is not in the registry, naming those that are', () => {
    expect(() => videoModelById('amazon.nova-reel-v1:0')).toThrow(/luma\.ray-v2:0, amazon\.nova-reel-v1:1/);
    expect(() => textModelById(LUMA_RAY2.id)).toThrow(/not a text model of the registry.*anthropic\.claude-haiku-5-5/);
    expect(() => videoModelById(CLAUDE_HAIKU_5_5.id)).toThrow(/not a video model/);
  });
});

describe('the text model', () => {
  it('reads transcripts with Claude Haiku 5.5 by default: Active, no end of life announced, tool use', () => {
    expect(textModelById(DEFAULT_TEXT_MODEL_ID)).toBe(CLAUDE_HAIKU_5_5);
    expect(CLAUDE_HAIKU_5_5).toMatchObject({
      lifecycle: { status: 'ACTIVE' },
      toolUse: true,
      contextWindowTokens: 1_000_000,
      maxOutputTokens: 128_000,
    });
    expect(CLAUDE_HAIKU_5_5.lifecycle.endOfLife).toBeUndefined();
    expect(lifecycleVerdict(CLAUDE_HAIKU_5_5.lifecycle, new Date('2026-11-28T12:00:00Z'))).toEqual({ state: 'active' });
    expect(CLAUDE_HAIKU_5_5.lifecycle.source).toContain('model-card-anthropic-claude-haiku-5-5');
  });

  it('is called through its US inference profile, and prices tokens with their source', () => {
    expect(CLAUDE_HAIKU_5_5.inferenceProfile).toMatchObject({ id: 'us.anthropic.claude-haiku-5-5', geography: 'US' });
    expect(CLAUDE_HAIKU_5_5.inferenceProfile.regions).toEqual(expect.arrayContaining(LUMA_RAY2.regions));
    expect(CLAUDE_HAIKU_5_5.prices.inputPerMillionUsd).toBeGreaterThan(0);
    expect(CLAUDE_HAIKU_5_5.prices.outputPerMillionUsd).toBeGreaterThan(CLAUDE_HAIKU_5_5.prices.inputPerMillionUsd);
    expect(CLAUDE_HAIKU_5_5.priceSource).toMatch(/https:\/\/aws\.amazon\.com\/bedrock\/pricing\//);
  });
});

describe('lifecycleVerdict', () => {
  it('calls Nova Reel 1.1 ending while Legacy, and ended after 30 September 2026', () => {
    expect(lifecycleVerdict(NOVA_REEL_1_1.lifecycle, new Date('2026-05-01T00:00:00Z'))).toEqual({
      state: 'ending',
      reason: 'it is Legacy since 2026-03-30',
    });
    expect(lifecycleVerdict(NOVA_REEL_1_1.lifecycle, new Date('2026-08-01T00:00:00Z'))).toEqual({
      state: 'ending',
      reason: 'its end of life is 2026-09-30, in 61 days',
      daysLeft: 61,
    });
    expect(lifecycleVerdict(NOVA_REEL_1_1.lifecycle, new Date('2026-09-30T12:00:00Z'))).toMatchObject({
      state: 'ending',
      daysLeft: 1,
    });
    expect(lifecycleVerdict(NOVA_REEL_1_1.lifecycle, new Date('2026-10-01T00:00:00Z'))).toEqual({
      state: 'ended',
      reason: 'its end of life was 2026-09-30',
    });
  });

  it(`warns ${END_OF_LIFE_NOTICE_DAYS} days ahead of an announced end of life of an Active model, not before`, () => {
    const lifecycle = { status: 'ACTIVE', endOfLife: '2027-06-30', source: 'https://docs.aws.amazon.com/x' } as const;
    // The end-of-life day counts as a day left: on 1 April 2027 there are 91.
    expect(lifecycleVerdict(lifecycle, new Date('2027-04-01T00:00:00Z'))).toEqual({ state: 'active' });
    expect(lifecycleVerdict(lifecycle, new Date('2027-04-02T00:00:00Z'))).toMatchObject({
      state: 'ending',
      daysLeft: END_OF_LIFE_NOTICE_DAYS,
    });
  });
});
