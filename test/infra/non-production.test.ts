import { ROUTES } from '#routes';
import { synthesizedWithControls } from './fixtures';

// A throwaway stage with the options that add resources, in the default profile: CDK's function
// that empties the stage's buckets, the alarm e-mail subscription, and the edge firewall
// (CloudFront and a WAF web ACL). Checked as `npm run synth` checks the stack.
const { template, controls, nag, cloudFormationValidation } = synthesizedWithControls({
  stage: 'dev',
  production: 'false',
  alarmEmail: 'oncall@example.com',
  edgeFirewall: 'true',
});
const functionCount = Object.keys(template.findResources('AWS::Lambda::Function')).length;
const logGroupCount = Object.keys(template.findResources('AWS::Logs::LogGroup')).length;

test('it fails no Control Tower control', () => {
  expect(controls.failing).toEqual({});
});

test('it acknowledges the default exceptions, the auto-delete function outside any VPC, and the distribution on CloudFront’s own domain', () => {
  const distribution = 'VideoApiStack/Edge/Distribution';
  expect(Object.keys(template.findResources('AWS::CloudFront::Distribution'))).toHaveLength(1);
  expect(controls.acknowledged).toEqual({
    'CT.APIGATEWAY.PR.5': { 'VideoApiStack/HttpApi': ROUTES.length + 1 },
    'CT.S3.PR.2': { 'VideoApiStack/Media/AccessLogs': 1 },
    'CT.S3.PR.9': { 'VideoApiStack/Media/AccessLogs': 1, 'VideoApiStack/Media/Bucket': 1 },
    'CT.S3.PR.10': { 'VideoApiStack/Media/AccessLogs': 1 },
    'CT.LAMBDA.PR.3': {
      VideoApiStack: functionCount - 1,
      'VideoApiStack/Custom::S3AutoDeleteObjectsCustomResourceProvider': 1,
    },
    'CT.CLOUDWATCH.PR.2': { VideoApiStack: logGroupCount },
    'CT.CLOUDWATCH.PR.3': { VideoApiStack: logGroupCount },
    'CT.CLOUDFRONT.PR.1': { [distribution]: 1 },
    'CT.CLOUDFRONT.PR.4': { [distribution]: 1 },
    'CT.CLOUDFRONT.PR.5': { [distribution]: 1 },
    'CT.CLOUDFRONT.PR.6': { [distribution]: 1 },
    'CT.CLOUDFRONT.PR.7': { [distribution]: 1 },
    'CT.CLOUDFRONT.PR.9': { [distribution]: 1 },
  });
});

test('cdk-nag finds nothing unsuppressed', () => {
  expect(nag).toEqual({ errors: [], warnings: [] });
});

test("the template passes CDK's built-in CloudFormation validation without a finding", () => {
  expect(cloudFormationValidation).toEqual([]);
});
