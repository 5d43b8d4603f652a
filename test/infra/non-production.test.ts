import {
  AUTO_DELETE_PROVIDER,
  EDGE_FIREWALL_EXCEPTIONS,
  EXCEPTIONS_EVERYWHERE,
  synthesizedWithControls,
} from './fixtures';

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
  expect(Object.keys(template.findResources('AWS::CloudFront::Distribution'))).toHaveLength(1);
  expect(controls.acknowledged).toEqual({
    ...EXCEPTIONS_EVERYWHERE,
    'CT.LAMBDA.PR.3': { VideoApiStack: functionCount - 1, [`VideoApiStack/${AUTO_DELETE_PROVIDER}`]: 1 },
    'CT.CLOUDWATCH.PR.2': { VideoApiStack: logGroupCount },
    'CT.CLOUDWATCH.PR.3': { VideoApiStack: logGroupCount },
    ...EDGE_FIREWALL_EXCEPTIONS,
  });
});

test('cdk-nag finds nothing unsuppressed', () => {
  expect(nag).toEqual({ errors: [], warnings: [] });
});

test("the template passes CDK's built-in CloudFormation validation without a finding", () => {
  expect(cloudFormationValidation).toEqual([]);
});
