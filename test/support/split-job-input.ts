/** A split job's input with every default filled in, as the create path stores it: for tests that make jobs directly. */
export const SPLIT_JOB_INPUT = {
  source_asset_id: 'asset_00000000000000000000000000',
  target_platforms: [],
  clip_length_preset: 'auto',
  aspect_ratio: '9:16',
  caption_style: 'clean',
  clip_style: 'balanced',
  max_clips: 3,
} as const;
