import { App, Aspects, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { deploymentConfigOf, stackNameOf } from '../lib/config';
import { ControlTowerControls, acknowledgedControlsText, controlFindingsIn } from '../lib/control-tower';
import { VideoApiStack } from '../lib/video-api-stack';

const app = new App();

// Every setting comes from the CDK context (cdk.json, `-c key=value`); docs/operations.md lists them.
const config = deploymentConfigOf(app);

// No env: the stack synthesizes offline (no lookups) and deploys to whatever account/region the
// CLI credentials point at; its template refuses a region its video model does not run in.
new VideoApiStack(app, stackNameOf(config.stage), {
  config,
  description:
    'Developer video automation API v1: HTTP API, one Lambda per route, DynamoDB single table, S3 media bucket, Step Functions video job workflow',
});

// Every AwsSolutions finding fails synth unless suppressed next to the resource with a reason.
Aspects.of(app).add(new AwsSolutionsChecks({ verbose: true }));

// AWS Control Tower's proactive controls, run over the synthesized template (docs/operations.md):
// the synthesis fails on a failing control; the acknowledged ones are listed with their reasons.
Validations.of(app).addPlugins(new ControlTowerControls());
console.error(acknowledgedControlsText(controlFindingsIn(app.synth().directory)));
