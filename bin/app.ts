import { App, Aspects } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { VideoApiStack } from '../lib/video-api-stack';

const app = new App();

// No env: the stack synthesizes offline (no lookups) and deploys to whatever account/region the
// CLI credentials point at. The Bedrock region is separate (context `bedrockRegion`, us-east-1 by
// default; see VideoApiStackProps).
new VideoApiStack(app, 'VideoApiStack', {
  description:
    'Developer video automation API v1: HTTP API, one Lambda per route, DynamoDB single table, S3 media bucket, Step Functions video job workflow',
});

// Every AwsSolutions finding fails synth unless suppressed next to the resource with a reason.
Aspects.of(app).add(new AwsSolutionsChecks({ verbose: true }));
