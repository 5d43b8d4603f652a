import { Aspects } from 'aws-cdk-lib';
import { Annotations, Match } from 'aws-cdk-lib/assertions';
import type { SynthesisMessage } from 'aws-cdk-lib/cx-api';
import { AwsSolutionsChecks } from 'cdk-nag';
import { VideoApiStack } from '../../lib/video-api-stack';
import { appWithoutBundling } from './fixtures';

/** `path: AwsSolutions-XX[finding]: first line`, so a failure names what to fix. */
const describeFindings = (findings: SynthesisMessage[]) =>
  findings.map((finding) => `${finding.id}: ${String(finding.entry.data).split('\n')[0]}`);

// The stack as bin/app.ts builds it, checked the way bin/app.ts checks it, in a production stage
// (the default) and in a throwaway one, whose buckets are emptied by a custom resource.
describe.each([
  ['a production stage', {}],
  ['a non-production stage', { stage: 'dev', production: false, alarmEmail: 'oncall@example.com' }],
])('in %s', (_stage, context) => {
  const app = appWithoutBundling(context);
  const stack = new VideoApiStack(app, 'VideoApiStack');
  Aspects.of(app).add(new AwsSolutionsChecks({ verbose: true }));
  const annotations = Annotations.fromStack(stack);

  test('the stack has no unsuppressed AwsSolutions errors', () => {
    const errors = annotations.findError('*', Match.stringLikeRegexp('AwsSolutions-.*'));
    expect(describeFindings(errors)).toEqual([]);
  });

  test('the stack has no unsuppressed AwsSolutions warnings', () => {
    const warnings = annotations.findWarning('*', Match.stringLikeRegexp('AwsSolutions-.*'));
    expect(describeFindings(warnings)).toEqual([]);
  });
});
