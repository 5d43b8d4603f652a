import type { StackInfo } from '../../local/stack-info';
import { describeDeployedEndpoints, describeLocalEndpoints, endpointsText } from '../../scripts/admin/endpoints';
import { formatTable } from '../../scripts/admin/text-output';

const DYNAMODB = 'http://127.0.0.1:4001';
const S3_SQS = 'http://127.0.0.1:4002';
const SFN = 'http://127.0.0.1:4003';

const stackInfo = (): StackInfo => ({
  pid: 1234,
  apiUrl: 'http://127.0.0.1:3000/api/v1/developer',
  environment: {
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    AWS_ENDPOINT_URL_DYNAMODB: DYNAMODB,
    AWS_ENDPOINT_URL_S3: S3_SQS,
    AWS_ENDPOINT_URL_SQS: S3_SQS,
    AWS_ENDPOINT_URL_SFN: SFN,
    TABLE_NAME: 'video-api-local',
    MEDIA_BUCKET_NAME: 'video-api-media-local',
    WEBHOOK_DELIVERIES_QUEUE_URL: `${S3_SQS}/000000000000/webhook-deliveries`,
    VIDEO_JOB_STATE_MACHINE_ARN: 'arn:aws:states:us-east-1:000000000000:stateMachine:video-job',
    SPLIT_JOB_STATE_MACHINE_ARN: 'arn:aws:states:us-east-1:000000000000:stateMachine:split-job',
    FFMPEG_PATH: '/usr/bin/ffmpeg',
  },
});

describe('local endpoints', () => {
  it("names each emulator's endpoint and resources, and the variables that reach them", () => {
    expect(describeLocalEndpoints(stackInfo(), '.local')).toEqual({
      stack: 'local',
      data_dir: '.local',
      api_url: 'http://127.0.0.1:3000/api/v1/developer',
      region: 'us-east-1',
      credentials: { access_key_id: 'local', secret_access_key: 'local' },
      services: {
        dynamodb: { endpoint: DYNAMODB, table_name: 'video-api-local' },
        s3: { endpoint: S3_SQS, bucket_name: 'video-api-media-local', path_style: true },
        sqs: { endpoint: S3_SQS, queue_urls: { 'webhook-deliveries': `${S3_SQS}/000000000000/webhook-deliveries` } },
        stepfunctions: {
          endpoint: SFN,
          state_machine_arns: {
            'video-job': 'arn:aws:states:us-east-1:000000000000:stateMachine:video-job',
            'split-job': 'arn:aws:states:us-east-1:000000000000:stateMachine:split-job',
          },
        },
      },
      environment: {
        AWS_ACCESS_KEY_ID: 'local',
        AWS_SECRET_ACCESS_KEY: 'local',
        AWS_REGION: 'us-east-1',
        AWS_DEFAULT_REGION: 'us-east-1',
        AWS_ENDPOINT_URL_DYNAMODB: DYNAMODB,
        AWS_ENDPOINT_URL_S3: S3_SQS,
        AWS_ENDPOINT_URL_SQS: S3_SQS,
        AWS_ENDPOINT_URL_SFN: SFN,
      },
    });
  });

  it('says which setting is missing from stack info written by an older stack', () => {
    const info = stackInfo();
    delete info.environment.AWS_ENDPOINT_URL_SFN;
    expect(() => describeLocalEndpoints(info, '.local')).toThrow(/lacks AWS_ENDPOINT_URL_SFN: restart the local stack/);
  });

  it('prints shell lines: dummy credentials and region, AWS CLI commands with their endpoint, and the endpoint variables', () => {
    const lines = endpointsText(describeLocalEndpoints(stackInfo(), '.local')).split('\n');
    expect(lines).toEqual(
      expect.arrayContaining([
        'export AWS_ACCESS_KEY_ID=local AWS_SECRET_ACCESS_KEY=local AWS_REGION=us-east-1 AWS_DEFAULT_REGION=us-east-1',
        `aws --endpoint-url ${DYNAMODB} dynamodb describe-table --table-name video-api-local`,
        `aws --endpoint-url ${DYNAMODB} dynamodb scan --table-name video-api-local --max-items 20`,
        `aws --endpoint-url ${S3_SQS} s3 ls s3://video-api-media-local --recursive`,
        `aws --endpoint-url ${S3_SQS} sqs list-queues`,
        `aws --endpoint-url ${SFN} stepfunctions list-executions --state-machine-arn arn:aws:states:us-east-1:000000000000:stateMachine:split-job`,
        `export AWS_ENDPOINT_URL_DYNAMODB=${DYNAMODB} AWS_ENDPOINT_URL_S3=${S3_SQS} AWS_ENDPOINT_URL_SQS=${S3_SQS} AWS_ENDPOINT_URL_SFN=${SFN}`,
      ]),
    );
  });
});

describe('deployed endpoints', () => {
  it("say that a deployed stack's endpoints are AWS's own, in the configured region", () => {
    const endpoints = describeDeployedEndpoints({ AWS_DEFAULT_REGION: 'eu-west-1' }, 'video-api-table');
    expect(endpoints).toEqual({
      stack: 'deployed',
      table_name: 'video-api-table',
      region: 'eu-west-1',
      services: null,
    });
    expect(endpointsText(endpoints)).toMatch(/^TABLE_NAME is set \(video-api-table\).*AWS's own, in region eu-west-1/);
  });
});

describe('text tables', () => {
  it('pads each column to its widest cell, two spaces apart, with no trailing spaces', () => {
    expect(
      formatTable([
        ['ORG', 'PLAN', 'CREATED'],
        ['12', 'custom', '2026-01-01'],
        ['3', 'team', ''],
      ]),
    ).toBe(['ORG  PLAN    CREATED', '12   custom  2026-01-01', '3    team'].join('\n'));
  });
});
