import { App, Stack, Validations } from 'aws-cdk-lib';
import * as s3 from 'aws-cdk-lib/aws-s3';
import {
  acknowledgeControl,
  acknowledgedControlsText,
  ControlTowerControls,
  type ControlId,
} from '../../lib/control-tower';
import { assemblyOutdir, EXCEPTIONS_EVERYWHERE, synthesizedWithControls } from './fixtures';

// The stack as `npm run synth` builds and checks it by default: a production stage.
const { template, findings, controls, nag, cloudFormationValidation } = synthesizedWithControls();
const functionCount = Object.keys(template.findResources('AWS::Lambda::Function')).length;
const logGroupCount = Object.keys(template.findResources('AWS::Logs::LogGroup')).length;

test('the default configuration fails no Control Tower control', () => {
  expect(controls.failing).toEqual({});
});

test('it acknowledges the stated exceptions, and the controls only the governed profile meets for every function and log group', () => {
  expect(controls.acknowledged).toEqual({
    ...EXCEPTIONS_EVERYWHERE,
    'CT.LAMBDA.PR.3': { VideoApiStack: functionCount },
    'CT.CLOUDWATCH.PR.2': { VideoApiStack: logGroupCount },
    'CT.CLOUDWATCH.PR.3': { VideoApiStack: logGroupCount },
  });
});

test('the synthesis lists every acknowledged control with where and why, as bin/app.ts prints it', () => {
  const lines = acknowledgedControlsText(findings).split('\n');
  expect(lines[0]).toBe('AWS Control Tower controls acknowledged (validation-report.json in the cloud assembly):');
  expect(lines.slice(1)).toHaveLength(findings.acknowledged.length);
  expect(lines).toContainEqual(
    expect.stringMatching(
      /^ {2}CT\.S3\.PR\.9 at VideoApiStack\/Media\/Bucket \(1 resource\): Object Lock would keep objects that must go/,
    ),
  );
  expect(lines).toContainEqual(
    expect.stringMatching(
      new RegExp(
        `^ {2}CT\\.LAMBDA\\.PR\\.3 at VideoApiStack \\(${functionCount} resources\\): Functions run outside any VPC`,
      ),
    ),
  );
});

test('cdk-nag finds nothing unsuppressed in the same synthesis', () => {
  expect(nag).toEqual({ errors: [], warnings: [] });
});

test("the template passes CDK's built-in CloudFormation validation without a finding", () => {
  expect(cloudFormationValidation).toEqual([]);
});

describe('the synthesis with the controls', () => {
  /** What a bucket without any setting fails: a small template, so cfn-guard runs the S3 rules only. */
  const BARE_BUCKET_FAILS: readonly ControlId[] = [
    'CT.S3.PR.1',
    'CT.S3.PR.2',
    'CT.S3.PR.3',
    'CT.S3.PR.4',
    'CT.S3.PR.5',
    'CT.S3.PR.6',
    'CT.S3.PR.9',
    'CT.S3.PR.10',
    'CT.S3.PR.11',
  ];

  /** Synthesizes an app holding one bare bucket that acknowledges these controls. */
  function synthesizeBareBucket(acknowledged: readonly ControlId[]) {
    const app = new App({ outdir: assemblyOutdir() });
    Validations.of(app).addPlugins(new ControlTowerControls());
    const bucket = new s3.CfnBucket(new Stack(app, 'Small'), 'Bucket');
    for (const control of acknowledged) acknowledgeControl(bucket, control, 'This test says so.');
    return () => app.synth();
  }

  test('fails on a control that a resource fails and does not acknowledge, even when it acknowledges others', () => {
    const synth = synthesizeBareBucket(BARE_BUCKET_FAILS.filter((control) => control !== 'CT.S3.PR.11'));
    expect(synth).toThrow(/CT\.S3\.PR\.11/);
  });

  test('succeeds when every control a resource fails is acknowledged', () => {
    expect(synthesizeBareBucket(BARE_BUCKET_FAILS)).not.toThrow();
  });
});
