import * as fs from 'node:fs';
import * as path from 'node:path';
import { AssetHashType, DockerImage } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { MEDIA_TOOL_ENVIRONMENT, type MediaTool } from '#platform/media-tools';

/**
 * ffmpeg and ffprobe for the functions that run them, as a layer (`/opt/bin`). The binaries are
 * the static Linux x86-64 builds that the npm packages @ffmpeg-installer/linux-x64 and
 * @ffprobe-installer/linux-x64 ship, so synthesis needs no network and no Docker; those packages
 * offer no arm64 build that npm installs on an x86-64 machine, so the functions using the layer
 * run on x86-64 (MEDIA_TOOLS_ARCHITECTURE). docs/split-jobs.md says which ffmpeg version runs where.
 */

export const MEDIA_TOOLS_ARCHITECTURE = lambda.Architecture.X86_64;

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
  public readonly layer: lambda.LayerVersion;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    const ffmpeg = binaryPackage('ffmpeg');
    const ffprobe = binaryPackage('ffprobe');
    this.layer = new lambda.LayerVersion(this, 'Layer', {
      description: `ffmpeg (${PACKAGES.ffmpeg} ${ffmpeg.version}) and ffprobe (${PACKAGES.ffprobe} ${ffprobe.version}) in /opt/bin`,
      compatibleArchitectures: [MEDIA_TOOLS_ARCHITECTURE],
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

  /** Gives the function the layer and the variables through which lambdas/platform/media-tools.ts finds the binaries. */
  attachTo(fn: lambda.Function): void {
    fn.addLayers(this.layer);
    for (const tool of ['ffmpeg', 'ffprobe'] as const)
      fn.addEnvironment(MEDIA_TOOL_ENVIRONMENT[tool], LAYER_PATHS[tool]);
  }
}
