import * as fs from 'node:fs';
import * as path from 'node:path';
import { AssetHashType, DockerImage } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { CAPTION_FONT_PACKAGE, CAPTION_FONTS, writeCaptionFontsDirectory } from '#platform/caption-fonts';
import { CAPTION_FONTS_DIR } from '#platform/settings';

/** Where the layer's directory is in the function (layers are extracted into /opt). */
const LAYER_DIRECTORY = '/opt/caption-fonts';

/**
 * The fonts captions are drawn with (lambdas/platform/caption-fonts.ts), as a layer for the
 * functions that draw them: only the two font files used (about 700 KB), their licence and the
 * fontconfig configuration, copied from the installed npm package at synthesis. Fonts are data,
 * so the layer suits every architecture.
 */
export class CaptionFontsLayer extends Construct {
  public readonly layer: lambda.LayerVersion;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    const manifest = require.resolve(`${CAPTION_FONT_PACKAGE}/package.json`);
    const packageDirectory = path.dirname(manifest);
    const { version } = JSON.parse(fs.readFileSync(manifest, 'utf8')) as { version: string };
    const files = Object.values(CAPTION_FONTS).map((font) => font.file);
    this.layer = new lambda.LayerVersion(this, 'Layer', {
      description: `Caption fonts (${files.join(', ')} of ${CAPTION_FONT_PACKAGE} ${version}, SIL OFL 1.1) in ${LAYER_DIRECTORY}`,
      code: lambda.Code.fromAsset(packageDirectory, {
        // The package's version and the files taken from it name the layer's contents.
        assetHashType: AssetHashType.CUSTOM,
        assetHash: `caption-fonts-${version}-${files.join('-')}`,
        bundling: {
          // Never used: local bundling always succeeds, and CDK requires an image to be named.
          image: DockerImage.fromRegistry('public.ecr.aws/docker/library/busybox'),
          local: {
            tryBundle(outputDir: string) {
              writeCaptionFontsDirectory(packageDirectory, path.join(outputDir, path.basename(LAYER_DIRECTORY)));
              return true;
            },
          },
        },
      }),
    });
  }

  /** Gives the function the layer and the variable through which caption-fonts.ts finds it. */
  attachTo(fn: lambda.Function): void {
    fn.addLayers(this.layer);
    fn.addEnvironment(CAPTION_FONTS_DIR.variable, LAYER_DIRECTORY);
  }
}
