import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CAPTION_FONTS_DIR, requiredSetting } from './settings';

/**
 * The fonts captions are drawn with, shipped with the project rather than taken from the machine:
 * Montserrat (SIL Open Font Licence 1.1) from the npm package @expo-google-fonts/montserrat, the
 * two weights the caption styles use. In AWS they come as a layer (lib/constructs/caption-fonts-layer.ts)
 * and the functions find it through CAPTION_FONTS_DIR; locally the stack writes the same directory
 * from the installed package (local/caption-fonts.ts).
 *
 * The directory holds the font files in `fonts/` (libass loads every file there as a font), the
 * font licence, and a fontconfig configuration that names no font directory. ffmpeg's libass asks
 * fontconfig for fonts as well as its `fontsdir`: pointed at that configuration
 * (FONTCONFIG_FILE), fontconfig neither reads the machine's configuration (which the 2018 static
 * ffmpeg warns about, line by line) nor offers the machine's fonts, so the captions look the same
 * on every machine and a missing font fails visibly instead of falling back.
 */

export const CAPTION_FONT_PACKAGE = '@expo-google-fonts/montserrat';

/** A font file of the package and the family name an ASS style names it by. */
export interface CaptionFont {
  /** Path inside the package. */
  file: string;
  family: string;
  /** The ASS style's Bold field for the weight: -1 picks the family's bold face. */
  bold: boolean;
}

export const CAPTION_FONTS = {
  /** Montserrat Bold: clean, karaoke and platform-native captions. */
  text: { file: '700Bold/Montserrat_700Bold.ttf', family: 'Montserrat', bold: true },
  /** Montserrat Black: bold_center's heavy words. */
  heavy: { file: '900Black/Montserrat_900Black.ttf', family: 'Montserrat Black', bold: false },
} as const satisfies Record<string, CaptionFont>;

/** The package's licence of the font software, shipped beside the fonts as the licence requires. */
const PACKAGE_LICENCE_FILE = 'LICENSE_FONT';

const FONTS_SUBDIRECTORY = 'fonts';
const FONTCONFIG_FILE_NAME = 'fonts.conf';
const LICENCE_FILE_NAME = 'OFL.txt';

/** A configuration with no font directory and no cache: fontconfig offers no font of its own. */
const FONTCONFIG_DOCUMENT = `<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "fonts.dtd">
<fontconfig></fontconfig>
`;

/** Where ffmpeg finds the fonts: the `ass` filter's `fontsdir`, and fontconfig's configuration file. */
export interface CaptionFontFiles {
  fontsDirectory: string;
  fontconfigFile: string;
}

export function captionFontFilesIn(directory: string): CaptionFontFiles {
  return {
    fontsDirectory: join(directory, FONTS_SUBDIRECTORY),
    fontconfigFile: join(directory, FONTCONFIG_FILE_NAME),
  };
}

/** The fonts of this function, from CAPTION_FONTS_DIR. */
export function captionFontFiles(): CaptionFontFiles {
  return captionFontFilesIn(requiredSetting(CAPTION_FONTS_DIR));
}

/** The environment ffmpeg needs to draw with these fonts only. */
export function captionFontEnvironment(fonts: CaptionFontFiles): Record<string, string> {
  return { FONTCONFIG_FILE: fonts.fontconfigFile };
}

/**
 * Writes the caption-fonts directory from the font package's directory into `target` (created if
 * needed): the layer's bundling and the local stack both make it this way. Synchronous, as CDK's
 * local bundling is.
 */
export function writeCaptionFontsDirectory(packageDirectory: string, target: string): void {
  const { fontsDirectory, fontconfigFile } = captionFontFilesIn(target);
  mkdirSync(fontsDirectory, { recursive: true });
  for (const font of Object.values(CAPTION_FONTS)) {
    copyFileSync(join(packageDirectory, font.file), join(fontsDirectory, font.file.split('/').at(-1)!));
  }
  copyFileSync(join(packageDirectory, PACKAGE_LICENCE_FILE), join(target, LICENCE_FILE_NAME));
  writeFileSync(fontconfigFile, FONTCONFIG_DOCUMENT);
}
