import * as path from 'node:path';
import { AssetHashType, DockerImage } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { PEOPLE_DETECTOR_PACKAGE, WASM_BACKEND_PACKAGE } from '#platform/people-detector-files';
import { PEOPLE_DETECTOR_DIR } from '#platform/settings';
import {
  peopleDetectorBuild,
  peopleDetectorContents,
  writePeopleDetectorDirectory,
} from '../people-detector-directory';

/** Where the layer's directory is in the function (layers are extracted into /opt). */
const LAYER_DIRECTORY = '/opt/people-detector';

/**
 * The people detector (lambdas/platform/people-detector-files.ts) as a layer for the functions that
 * find people: the bundled engine (1.4 MB), the thread that runs it (4 KB), the WebAssembly backend
 * (0.74 MB) and the two models (5.43 MB), 7.6 MB in all (5.3 MB zipped), written from the installed
 * packages at synthesis. WebAssembly runs the same on either architecture.
 */
export class PeopleDetectorLayer extends Construct {
  public readonly layer: lambda.LayerVersion;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    const contents = peopleDetectorContents();
    this.layer = new lambda.LayerVersion(this, 'Layer', {
      description: `People detector (${PEOPLE_DETECTOR_PACKAGE} on ${WASM_BACKEND_PACKAGE}, ${contents}; MIT and Apache 2.0) in ${LAYER_DIRECTORY}`,
      code: lambda.Code.fromAsset(path.dirname(require.resolve(PEOPLE_DETECTOR_PACKAGE)), {
        // The packages' versions, the models taken from them and the worker's code name the layer's contents.
        assetHashType: AssetHashType.CUSTOM,
        assetHash: `people-detector-${peopleDetectorBuild()}`,
        bundling: {
          // Never used: local bundling always succeeds, and CDK requires an image to be named.
          image: DockerImage.fromRegistry('public.ecr.aws/docker/library/busybox'),
          local: {
            tryBundle(outputDir: string) {
              writePeopleDetectorDirectory(path.join(outputDir, path.basename(LAYER_DIRECTORY)));
              return true;
            },
          },
        },
      }),
    });
  }

  /** Gives the function the layer and the variable through which people-detector-files.ts finds it. */
  attachTo(fn: lambda.Function): void {
    fn.addLayers(this.layer);
    fn.addEnvironment(PEOPLE_DETECTOR_DIR.variable, LAYER_DIRECTORY);
  }
}
