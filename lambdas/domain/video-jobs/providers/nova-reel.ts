import { createHash } from 'node:crypto';
import type { RenderRequest } from './port';
import { promptWithStyle, type BedrockRequestFormat, type ModelInput, type StartImageBytes } from './bedrock';

/**
 * Amazon Nova Reel 1.1's request (`amazon.nova-reel-v1:1`, us-east-1, Legacy with its end of
 * life on 2026-09-30: an explicit opt-in only). Every video is 1280x720 at 24 fps in shots of
 * 6 s: one TEXT_VIDEO shot (512 characters, an optional first image), or 2 or 3 shots through
 * MULTI_SHOT_AUTOMATED (text only, 4,000 characters) or MULTI_SHOT_MANUAL (each shot 512
 * characters, the image on the first).
 */
export const NOVA_REEL_FORMAT: BedrockRequestFormat = {
  modelInput(request: RenderRequest, image?: StartImageBytes): ModelInput {
    if (request.renderSeconds % SHOT_SECONDS !== 0) {
      throw new Error(`Nova Reel renders shots of ${SHOT_SECONDS} s, not ${request.renderSeconds} s`);
    }
    const shots = request.renderSeconds / SHOT_SECONDS;
    const seed = createHash('sha256').update(request.renderId).digest().readUInt32BE(0) % 2147483647;
    const config = { fps: 24, dimension: `${request.frame.width}x${request.frame.height}`, seed };
    const novaImage = image && {
      format: 'jpeg',
      source: { bytes: image.jpegBase64 },
    };
    if (shots === 1) {
      return {
        taskType: 'TEXT_VIDEO',
        textToVideoParams: {
          text: promptWithStyle(request, SHOT_TEXT_LIMIT),
          ...(novaImage ? { images: [novaImage] } : {}),
        },
        videoGenerationConfig: { durationSeconds: SHOT_SECONDS, ...config },
      };
    }
    if (novaImage) {
      // Only TEXT_VIDEO and MULTI_SHOT_MANUAL take images: the image opens the first shot, the same prompt drives them all.
      const text = promptWithStyle(request, SHOT_TEXT_LIMIT);
      return {
        taskType: 'MULTI_SHOT_MANUAL',
        multiShotManualParams: {
          shots: Array.from({ length: shots }, (_, i): ModelInput => (i === 0 ? { text, image: novaImage } : { text })),
        },
        videoGenerationConfig: config,
      };
    }
    return {
      taskType: 'MULTI_SHOT_AUTOMATED',
      multiShotAutomatedParams: { text: promptWithStyle(request, AUTOMATED_TEXT_LIMIT) },
      videoGenerationConfig: { durationSeconds: request.renderSeconds, ...config },
    };
  },
  // From AWS's figures: about 90 s for a 6 s video, 14 to 17 minutes for 2 minutes (20 shots).
  typicalSeconds: (renderSeconds) => 90 + 50 * (renderSeconds / SHOT_SECONDS - 1),
};

const SHOT_SECONDS = 6;
const SHOT_TEXT_LIMIT = 512;
const AUTOMATED_TEXT_LIMIT = 4000;
