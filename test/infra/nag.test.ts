import * as fs from 'node:fs';
import * as path from 'node:path';
import { Aspects } from 'aws-cdk-lib';
import { VALIDATION_REPORT_FILE } from 'aws-cdk-lib/cx-api';
import { AwsSolutionsChecks } from 'cdk-nag';
import { VideoApiStack } from '../../lib/video-api-stack';
import { appWithoutBundling, nagFindings } from './fixtures';

interface ValidationReport {
  pluginReports: {
    violations: { ruleName: string; description: string; violatingConstructs: { constructPath: string }[] }[];
  }[];
}

/** What CDK's built-in CloudFormation validation found, each as `path: rule description`. */
function validationFindings(assemblyDirectory: string): string[] {
  const report = JSON.parse(
    fs.readFileSync(path.join(assemblyDirectory, VALIDATION_REPORT_FILE), 'utf8'),
  ) as ValidationReport;
  return report.pluginReports.flatMap(({ violations }) =>
    violations.flatMap(({ ruleName, description, violatingConstructs }) =>
      violatingConstructs.map(({ constructPath }) => `${constructPath}: ${ruleName} ${description}`),
    ),
  );
}

// The stack as bin/app.ts builds it, checked the way bin/app.ts and `cdk synth` check it, in a
// production stage (the default) and in a throwaway one, whose buckets are emptied by a custom resource.
describe.each([
  ['a production stage', {}],
  ['a non-production stage', { stage: 'dev', production: false, alarmEmail: 'oncall@example.com' }],
])('in %s', (_stage, context) => {
  const app = appWithoutBundling(context, { cloudFormationValidation: true });
  const stack = new VideoApiStack(app, 'VideoApiStack');
  Aspects.of(app).add(new AwsSolutionsChecks({ verbose: true }));
  const findings = nagFindings(stack);

  test('the stack has no unsuppressed AwsSolutions errors', () => {
    expect(findings.errors).toEqual([]);
  });

  test('the stack has no unsuppressed AwsSolutions warnings', () => {
    expect(findings.warnings).toEqual([]);
  });

  test("the template passes CDK's built-in CloudFormation validation without a finding", () => {
    expect(validationFindings(app.synth().directory)).toEqual([]);
  });
});
