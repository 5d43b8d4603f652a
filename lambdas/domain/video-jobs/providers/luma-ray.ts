import type { RenderRequest } from './port';
import { promptWithStyle, type BedrockRequestFormat, type ModelInput, type StartImageBytes } from './bedrock';

/**
 * Luma Ray2's request on Bedrock (`luma.ray-v2:0`, Bedrock user guide, "Luma AI models"):
 * `prompt` (1 to 5,000 characters), `aspect_ratio` (1:1, 16:9, 9:16 among others, rendered
 * natively), `duration` (`5s` or `9s`), `resolution` (`540p` or `720p`), `loop`, and `keyframes`
 * whose `frame0` is the image the video starts from (JPEG or PNG, base64). There is no seed.
 */
export const LUMA_RAY_FORMAT: BedrockRequestFormat = {
  modelInput(request: RenderRequest, image?: StartImageBytes): ModelInput {
    const duration = RAY_DURATIONS[request.renderSeconds];
    if (!duration) throw new Error(`Ray2 renders 5 s or 9 s, not ${request.renderSeconds} s`);
    return {
      prompt: promptWithStyle(request, RAY_PROMPT_CHARACTERS),
      aspect_ratio: request.frame.aspectRatio,
      loop: false,
      duration,
      resolution: '720p',
      ...(image
        ? {
            keyframes: {
              frame0: { type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: image.jpegBase64 } },
            },
          }
        : {}),
    };
  },
  // The Bedrock guide: "typically 2-5 minutes for 5-second videos and 4-8 minutes for 9-second videos".
  typicalSeconds: (renderSeconds) => (renderSeconds <= 5 ? 210 : 360),
};

const RAY_PROMPT_CHARACTERS = 5000;
const RAY_DURATIONS: Readonly<Record<number, string>> = { 5: '5s', 9: '9s' };
