import { optionalSetting, VIDEO_CREDITS_PER_SECOND } from '#platform/settings';

/**
 * What a video job costs, in credits charged at creation: its seconds times the rate of its mode.
 * The rates are the operator's to set (the `videoCreditsPerSecond` deployment setting), read by
 * the create route and by the CDK app, which passes them on.
 */

export type VideoJobMode = 'text_to_video' | 'image_to_video';
export type VideoCreditRates = Readonly<Record<VideoJobMode, number>>;

/**
 * Credits per second of output unless the operator sets others (`videoCreditsPerSecond`):
 * animating a supplied image costs more than text alone. What a credit is worth is the main
 * application's to say; docs/capacity.md sets these against what the model costs.
 */
export const DEFAULT_VIDEO_CREDITS_PER_SECOND: VideoCreditRates = { text_to_video: 2, image_to_video: 3 };

/** Whole credits from 1 to 1,000 a second of each mode, or undefined. */
export function videoCreditRatesIn(value: unknown): VideoCreditRates | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const rates = value as Record<string, unknown>;
  const modes: VideoJobMode[] = ['text_to_video', 'image_to_video'];
  const valid = (rate: unknown) => Number.isInteger(rate) && (rate as number) >= 1 && (rate as number) <= 1000;
  if (Object.keys(rates).length !== modes.length || !modes.every((mode) => valid(rates[mode]))) return undefined;
  return { text_to_video: rates.text_to_video as number, image_to_video: rates.image_to_video as number };
}

let settingRates: VideoCreditRates | undefined;

/** The rates the VIDEO_CREDITS_PER_SECOND setting gives, the defaults when it is unset; read once per container. */
export function videoCreditRates(): VideoCreditRates {
  if (!settingRates) {
    const text = optionalSetting(VIDEO_CREDITS_PER_SECOND);
    const rates = text === undefined ? DEFAULT_VIDEO_CREDITS_PER_SECOND : videoCreditRatesIn(JSON.parse(text));
    if (!rates) throw new Error(`${VIDEO_CREDITS_PER_SECOND.variable} is not a valid set of rates: ${text}`);
    settingRates = rates;
  }
  return settingRates;
}

export function videoJobPrice(
  request: { duration_seconds: number; source_asset_id?: string },
  rates: VideoCreditRates = videoCreditRates(),
): number {
  const mode = request.source_asset_id ? 'image_to_video' : 'text_to_video';
  return request.duration_seconds * rates[mode];
}
