import type { StackInfo } from '../../local/stack-info';
import { MEDIA_BUCKET_NAME, TABLE_NAME } from '#platform/settings';
import { QUEUES } from '#queues';
import { WORKFLOWS } from '#workflows';
import { formatTable } from './text-output';

/** Where the local stack's emulators listen, and what a client needs to talk to them. */
export interface LocalEndpoints {
  stack: 'local';
  data_dir: string;
  api_url: string;
  region: string;
  /** The local stack's credentials: the S3 emulator checks signatures against them; the others accept any. */
  credentials: { access_key_id: string; secret_access_key: string };
  services: {
    dynamodb: { endpoint: string; table_name: string };
    /** The S3 emulator serves no bucket subdomains: clients address buckets by path. */
    s3: { endpoint: string; bucket_name: string; path_style: true };
    sqs: { endpoint: string; queue_urls: Record<string, string> };
    stepfunctions: { endpoint: string; state_machine_arns: Record<string, string> };
  };
  /** The variables that point the AWS CLI and the AWS SDKs of a shell at the emulators. */
  environment: Record<string, string>;
}

/** A deployed stack is reached at AWS's own endpoints: there are no emulators to name. */
export interface DeployedEndpoints {
  stack: 'deployed';
  table_name: string;
  region: string | null;
  services: null;
}

export function describeLocalEndpoints(info: StackInfo, dataDir: string): LocalEndpoints {
  const setting = (name: string) => {
    const value = info.environment[name];
    if (value === undefined) {
      throw new Error(`The stack info in ${dataDir} lacks ${name}: restart the local stack to write it anew.`);
    }
    return value;
  };
  const region = setting('AWS_REGION');
  const credentials = {
    access_key_id: setting('AWS_ACCESS_KEY_ID'),
    secret_access_key: setting('AWS_SECRET_ACCESS_KEY'),
  };
  const services = {
    dynamodb: { endpoint: setting('AWS_ENDPOINT_URL_DYNAMODB'), table_name: setting(TABLE_NAME.variable) },
    s3: {
      endpoint: setting('AWS_ENDPOINT_URL_S3'),
      bucket_name: setting(MEDIA_BUCKET_NAME.variable),
      path_style: true,
    },
    sqs: {
      endpoint: setting('AWS_ENDPOINT_URL_SQS'),
      queue_urls: Object.fromEntries(QUEUES.map((queue) => [queue.name, setting(queue.urlSetting.variable)])),
    },
    stepfunctions: {
      endpoint: setting('AWS_ENDPOINT_URL_SFN'),
      state_machine_arns: Object.fromEntries(
        WORKFLOWS.map((workflow) => [workflow.name, setting(workflow.arnSetting.variable)]),
      ),
    },
  } as const;
  return {
    stack: 'local',
    data_dir: dataDir,
    api_url: info.apiUrl,
    region,
    credentials,
    services,
    environment: {
      AWS_ACCESS_KEY_ID: credentials.access_key_id,
      AWS_SECRET_ACCESS_KEY: credentials.secret_access_key,
      AWS_REGION: region,
      // The AWS CLI reads the region from AWS_DEFAULT_REGION; AWS_REGION is the SDKs'.
      AWS_DEFAULT_REGION: region,
      AWS_ENDPOINT_URL_DYNAMODB: services.dynamodb.endpoint,
      AWS_ENDPOINT_URL_S3: services.s3.endpoint,
      AWS_ENDPOINT_URL_SQS: services.sqs.endpoint,
      AWS_ENDPOINT_URL_SFN: services.stepfunctions.endpoint,
    },
  };
}

export function describeDeployedEndpoints(environment: NodeJS.ProcessEnv, tableName: string): DeployedEndpoints {
  return {
    stack: 'deployed',
    table_name: tableName,
    region: environment.AWS_REGION ?? environment.AWS_DEFAULT_REGION ?? null,
    services: null,
  };
}

const exportLine = (variables: readonly (readonly [string, string])[]) =>
  `export ${variables.map(([name, value]) => `${name}=${value}`).join(' ')}`;

/** The endpoints for a person: a table of the emulators, then lines to paste into a shell. */
export function endpointsText(endpoints: LocalEndpoints | DeployedEndpoints): string {
  if (endpoints.stack === 'deployed') {
    const region = endpoints.region ?? 'the one your AWS configuration names';
    return [
      `TABLE_NAME is set (${endpoints.table_name}): a deployed stack, whose endpoints are AWS's own, in region ${region}.`,
      'Emulator endpoints exist for the local stack only: unset TABLE_NAME to see them.',
    ].join('\n');
  }
  const { dynamodb, s3, sqs, stepfunctions } = endpoints.services;
  const variables = Object.entries(endpoints.environment);
  const isEndpoint = ([name]: readonly [string, string]) => name.startsWith('AWS_ENDPOINT_URL_');
  const aws = (endpoint: string, command: string) => `aws --endpoint-url ${endpoint} ${command}`;
  return [
    `Local stack in ${endpoints.data_dir}, API at ${endpoints.api_url}`,
    '',
    formatTable([
      ['SERVICE', 'ENDPOINT', 'RESOURCES'],
      ['DynamoDB', dynamodb.endpoint, `table ${dynamodb.table_name}`],
      ['S3', s3.endpoint, `bucket ${s3.bucket_name} (path-style addressing)`],
      ['SQS', sqs.endpoint, `queues ${Object.keys(sqs.queue_urls).join(', ')}`],
      [
        'Step Functions',
        stepfunctions.endpoint,
        `state machines ${Object.keys(stepfunctions.state_machine_arns).join(', ')}`,
      ],
    ]),
    '',
    '# The local credentials (S3 checks signatures against them) and the region of the stack:',
    exportLine(variables.filter((variable) => !isEndpoint(variable))),
    '# Then give each AWS CLI command its endpoint, for example:',
    aws(dynamodb.endpoint, `dynamodb describe-table --table-name ${dynamodb.table_name}`),
    aws(dynamodb.endpoint, `dynamodb scan --table-name ${dynamodb.table_name} --max-items 20`),
    aws(s3.endpoint, `s3 ls s3://${s3.bucket_name} --recursive`),
    aws(sqs.endpoint, 'sqs list-queues'),
    ...Object.values(stepfunctions.state_machine_arns).map((arn) =>
      aws(stepfunctions.endpoint, `stepfunctions list-executions --state-machine-arn ${arn}`),
    ),
    // The AWS CLI v1 sends sqs commands in us-east-1 to queue.amazonaws.com whatever AWS_ENDPOINT_URL_SQS says.
    '# or point the AWS SDKs and AWS CLI commands of this shell at the emulators (AWS CLI v1 sqs commands still need --endpoint-url):',
    exportLine(variables.filter(isEndpoint)),
  ].join('\n');
}
