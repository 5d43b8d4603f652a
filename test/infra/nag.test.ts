import { Aspects } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { VideoApiStack } from '../../lib/video-api-stack';
import { appWithoutBundling, nagFindings } from './fixtures';

// The stack as bin/app.ts builds it, checked the way bin/app.ts checks it, in a production stage
// (the default) and in a throwaway one, whose buckets are emptied by a custom resource.
describe.each([
  ['a production stage', {}],
  ['a non-production stage', { stage: 'dev', production: false, alarmEmail: 'oncall@example.com' }],
])('in %s', (_stage, context) => {
  const app = appWithoutBundling(context);
  const stack = new VideoApiStack(app, 'VideoApiStack');
  Aspects.of(app).add(new AwsSolutionsChecks({ verbose: true }));
  const findings = nagFindings(stack);

  test('the stack has no unsuppressed AwsSolutions errors', () => {
    expect(findings.errors).toEqual([]);
  });

  test('the stack has no unsuppressed AwsSolutions warnings', () => {
    expect(findings.warnings).toEqual([]);
  });
});
