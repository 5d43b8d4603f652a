import * as fs from 'node:fs';
import * as path from 'node:path';
import { App } from 'aws-cdk-lib';

/** The context (feature flags) of cdk.json, which the CLI gives the app and `new App()` does not read. */
const CDK_JSON_CONTEXT = (
  JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'cdk.json'), 'utf8')) as {
    context: Record<string, unknown>;
  }
).context;

export interface AppWithoutBundlingOptions {
  /** Where the cloud assembly goes; a new temporary directory unless given. */
  outdir?: string;
  /**
   * Whether synthesis runs CDK's built-in CloudFormation validation, as `cdk synth` does. It loads
   * a WebAssembly rule engine and checks every resource, several CPU-seconds per synthesis, so
   * only the tests of the stack checked as bin/app.ts checks it turn it on
   * (`synthesizedWithControls` in test/infra/fixtures.ts).
   */
  cloudFormationValidation?: boolean;
}

/**
 * An App with cdk.json's context that synthesizes without running esbuild:
 * `aws:cdk:bundling-stacks` is the context key the CDK CLI itself sets (from `--exclusively`) to
 * skip bundling of stacks it will not deploy. Assets then point at the project root with a hash of
 * the construct path. The infra tests prove real bundling once (test/infra/bundling.test.ts); the
 * cold-init bench bundles the functions itself (scripts/bench/function-bundles.ts).
 */
export function appWithoutBundling(
  context: Record<string, unknown> = {},
  { outdir, cloudFormationValidation = false }: AppWithoutBundlingOptions = {},
): App {
  return new App({
    outdir,
    builtinCloudFormationValidation: cloudFormationValidation,
    context: { ...CDK_JSON_CONTEXT, 'aws:cdk:bundling-stacks': [], ...context },
  });
}
