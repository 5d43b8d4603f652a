import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import {
  CAPTION_FONT_PACKAGE,
  captionFontFilesIn,
  writeCaptionFontsDirectory,
  type CaptionFontFiles,
} from '#platform/caption-fonts';
import { CAPTION_FONTS_DIR } from '#platform/settings';
import { preparedDirectory } from './prepared-directory';

/**
 * The caption-fonts directory on this machine (lambdas/platform/caption-fonts.ts), written once
 * per package version from the installed font package, as the layer is in AWS.
 */

let prepared: string | undefined;

export function localCaptionFontsDirectory(): string {
  if (prepared) return prepared;
  const manifest = require.resolve(`${CAPTION_FONT_PACKAGE}/package.json`);
  const { version } = JSON.parse(readFileSync(manifest, 'utf8')) as { version: string };
  prepared = preparedDirectory(`caption-fonts-${version}`, (staging) =>
    writeCaptionFontsDirectory(dirname(manifest), staging),
  );
  return prepared;
}

export function localCaptionFontFiles(): CaptionFontFiles {
  return captionFontFilesIn(localCaptionFontsDirectory());
}

/** The caption-fonts setting for the functions the local stack runs. */
export function captionFontsEnvironment(): Record<string, string> {
  return { [CAPTION_FONTS_DIR.variable]: localCaptionFontsDirectory() };
}
