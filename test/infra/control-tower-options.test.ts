import { ROUTES } from '#routes';
import { synthesizedWithControls } from './fixtures';

// The options that add resources, all at once in the governed profile: a non-production stage
// (CDK's function that empties its buckets) and the edge firewall (CloudFront and a WAF web ACL).
const { template, controls, nag } = synthesizedWithControls({
  governed: 'true',
  vpcId: 'vpc-0123456789abcdef0',
  vpcSubnets: JSON.stringify([
    { subnetId: 'subnet-0aaaaaaaaaaaaaaa1', availabilityZone: 'us-east-1a', routeTableId: 'rtb-0aaaaaaaaaaaaaaa1' },
  ]),
  stage: 'dev',
  production: 'false',
  edgeFirewall: 'true',
});

test('they fail no Control Tower control', () => {
  expect(controls.failing).toEqual({});
});

test('they acknowledge the stated exceptions: the auto-delete function outside the VPC, and the distribution on CloudFront’s own domain', () => {
  const distribution = 'VideoApiStack/Edge/Distribution';
  expect(Object.keys(template.findResources('AWS::CloudFront::Distribution'))).toHaveLength(1);
  expect(controls.acknowledged).toEqual({
    'CT.APIGATEWAY.PR.5': { 'VideoApiStack/HttpApi': ROUTES.length + 1 },
    'CT.S3.PR.2': { 'VideoApiStack/Media/AccessLogs': 1 },
    'CT.S3.PR.9': { 'VideoApiStack/Media/AccessLogs': 1, 'VideoApiStack/Media/Bucket': 1 },
    'CT.S3.PR.10': { 'VideoApiStack/Media/AccessLogs': 1 },
    'CT.LAMBDA.PR.3': { 'VideoApiStack/Custom::S3AutoDeleteObjectsCustomResourceProvider': 1 },
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
