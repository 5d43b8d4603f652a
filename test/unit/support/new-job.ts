import type { SplitJobInput } from '#contract/types';
import { TEAM_LIMITS } from '#domain/access/organizations';
import type { NewJob } from '#domain/jobs/lifecycle';

/** The key prefix every test job is created by. */
export const CREATING_KEY = 'abcdefghjkmnpqrs';

/** A text-to-video create of organization 7 as the job core receives it, with `changes` applied. */
export function newVideoJob(changes: Partial<NewJob<'video'>> = {}): NewJob<'video'> {
  return {
    organizationId: 7,
    type: 'video',
    price: 10,
    limits: TEAM_LIMITS,
    createdByKey: CREATING_KEY,
    input: { prompt: 'A lighthouse', duration_seconds: 5, aspect_ratio: '9:16', model: 'auto', mode: 'text_to_video' },
    metadata: null,
    ...changes,
  };
}

/** A split job's input as the create path stores it: defaults applied. */
export const SPLIT_INPUT: SplitJobInput = {
  source_asset_id: 'asset_source',
  target_platforms: [],
  clip_length_preset: 'auto',
  aspect_ratio: '9:16',
  caption_style: 'clean',
  burn_captions: true,
  framing: 'auto',
  clip_style: 'balanced',
  max_clips: 5,
};
