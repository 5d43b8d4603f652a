import * as fs from 'node:fs';
import * as path from 'node:path';
import { Annotations, AssetHashType, DockerImage } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { MEDIA_TOOL_SETTINGS, type MediaTool } from '#platform/media-tools';

/**
 * ffmpeg and ffprobe for the functions that run them, as a layer (`/opt/bin`). By default the
 * binaries are the static Linux x86-64 builds that the npm packages @ffmpeg-installer/linux-x64
 * and @ffprobe-installer/linux-x64 ship, so synthesis needs no network and no Docker; those
 * packages offer no arm64 build that npm installs on an x86-64 machine, so the functions using the
 * layer run on x86-64. That ffmpeg is a 2018 build, and it decodes untrusted uploads: an operator
 * can give the functions a current one instead, as a layer of their own (`mediaToolsLayerArn`,
 * docs/operations.md). Every function that runs the tools says at synthesis which ffmpeg it gets.
 */

export const MEDIA_TOOLS_ARCHITECTURES = ['x86_64', 'arm64'] as const;

/** The repository's own build, or a layer the operator made (binaries in its `bin/`, so at /opt/bin). */
export type MediaToolsSource =
  | { kind: 'bundled' }
  | {
      kind: 'layer';
      layerArn: string;
      ffmpegVersion: string;
      architecture: (typeof MEDIA_TOOLS_ARCHITECTURES)[number];
    };

const PACKAGES: Readonly<Record<MediaTool, string>> = {
  ffmpeg: '@ffmpeg-installer/linux-x64',
  ffprobe: '@ffprobe-installer/linux-x64',
};

/** Where the layer puts each binary, for the functions' environment. */
const LAYER_PATHS: Readonly<Record<MediaTool, string>> = { ffmpeg: '/opt/bin/ffmpeg', ffprobe: '/opt/bin/ffprobe' };

interface BinaryPackage {
  directory: string;
  version: string;
  binary: string;
}

function binaryPackage(tool: MediaTool): BinaryPackage {
  let manifest: string;
  try {
    manifest = require.resolve(`${PACKAGES[tool]}/package.json`);
  } catch {
    throw new Error(
      `The media-tools layer needs ${PACKAGES[tool]}, which npm installs only on linux-x64. ` +
        'Synthesize on linux-x64, or install it with `npm install --no-save --os=linux --cpu=x64 ' +
        `${PACKAGES[tool]}\`.`,
    );
  }
  const directory = path.dirname(manifest);
  const { version } = JSON.parse(fs.readFileSync(manifest, 'utf8')) as { version: string };
  return { directory, version, binary: path.join(directory, tool) };
}

export class MediaToolsLayer extends Construct {
  public readonly layer: lambda.ILayerVersion;
  /** What the functions run on: the layer's binaries are built for it. */
  public readonly architecture: lambda.Architecture;
  /** Which ffmpeg the functions get, as synthesis reports it. */
  public readonly description: string;

  constructor(scope: Construct, id: string, props: { source?: MediaToolsSource } = {}) {
    super(scope, id);
    const source = props.source ?? { kind: 'bundled' };
    if (source.kind === 'layer') {
      this.layer = lambda.LayerVersion.fromLayerVersionArn(this, 'Layer', source.layerArn);
      this.architecture = source.architecture === 'arm64' ? lambda.Architecture.ARM_64 : lambda.Architecture.X86_64;
      this.description = `ffmpeg ${source.ffmpegVersion} from the layer ${source.layerArn}`;
      return;
    }
    const ffmpeg = binaryPackage('ffmpeg');
    const ffprobe = binaryPackage('ffprobe');
    this.architecture = lambda.Architecture.X86_64;
    this.description = `ffmpeg from ${PACKAGES.ffmpeg} ${ffmpeg.version} (a 2018 static build; set mediaToolsLayerArn for a current one) and ffprobe from ${PACKAGES.ffprobe} ${ffprobe.version}`;
    this.layer = new lambda.LayerVersion(this, 'Layer', {
      description: `ffmpeg (${PACKAGES.ffmpeg} ${ffmpeg.version}) and ffprobe (${PACKAGES.ffprobe} ${ffprobe.version}) in /opt/bin`,
      compatibleArchitectures: [this.architecture],
      // Hashing 150 MB of binaries on every synthesis would be slow; their package versions name them.
      code: lambda.Code.fromAsset(ffmpeg.directory, {
        assetHashType: AssetHashType.CUSTOM,
        assetHash: `media-tools-${ffmpeg.version}-${ffprobe.version}`,
        bundling: {
          // Never used: local bundling always succeeds, and CDK requires an image to be named.
          image: DockerImage.fromRegistry('public.ecr.aws/docker/library/busybox'),
          local: {
            tryBundle(outputDir: string) {
              fs.mkdirSync(path.join(outputDir, 'bin'), { recursive: true });
              for (const { binary } of [ffmpeg, ffprobe]) {
                const target = path.join(outputDir, 'bin', path.basename(binary));
                fs.copyFileSync(binary, target);
                fs.chmodSync(target, 0o755);
              }
              return true;
            },
          },
        },
      }),
    });
  }

  /**
   * Gives the function the layer and the variables through which lambdas/platform/media-tools.ts
   * finds the binaries, and reports at synthesis which ffmpeg it runs.
   */
  attachTo(fn: lambda.Function): void {
    fn.addLayers(this.layer);
    for (const tool of ['ffmpeg', 'ffprobe'] as const)
      fn.addEnvironment(MEDIA_TOOL_SETTINGS[tool].variable, LAYER_PATHS[tool]);
    Annotations.of(fn).addInfo(`Runs ${this.description}`);
  }
}
