import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import {
  CAPTION_FONT_PACKAGE,
  captionFontFilesIn,
  writeCaptionFontsDirectory,
  type CaptionFontFiles,
} from '#platform/caption-fonts';
import { CAPTION_FONTS_DIR } from '#platform/settings';

/**
 * The caption-fonts directory on this machine (lambdas/platform/caption-fonts.ts), written once
 * per package version from the installed font package into the system's temporary directory, as
 * the layer is in AWS. Written beside and renamed into place, so that processes starting together
 * (the stack, test workers) never read a half-written one.
 */

let prepared: string | undefined;

export function localCaptionFontsDirectory(): string {
  if (prepared) return prepared;
  const manifest = require.resolve(`${CAPTION_FONT_PACKAGE}/package.json`);
  const { version } = JSON.parse(readFileSync(manifest, 'utf8')) as { version: string };
  const directory = join(tmpdir(), `caption-fonts-${version}`);
  if (!existsSync(directory)) {
    const staging = mkdtempSync(`${directory}-`);
    writeCaptionFontsDirectory(dirname(manifest), staging);
    try {
      renameSync(staging, directory);
    } catch (error) {
      rmSync(staging, { recursive: true, force: true });
      if (!existsSync(directory)) throw error;
    }
  }
  prepared = directory;
  return directory;
}

export function localCaptionFontFiles(): CaptionFontFiles {
  return captionFontFilesIn(localCaptionFontsDirectory());
}

/** The caption-fonts setting for the functions the local stack runs. */
export function captionFontsEnvironment(): Record<string, string> {
  return { [CAPTION_FONTS_DIR.variable]: localCaptionFontsDirectory() };
}
