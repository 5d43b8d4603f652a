import { mockClient } from 'aws-sdk-client-mock';
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { operation as createAssetUploadUrl } from '#contract/operations/createAssetUploadUrl';
import { apiHandler, MAX_BODY_NESTING, type ApiRequest } from '#http/api-handler';
import { ApiError } from '#platform/errors';
import { callerEvent, tableKnowsCaller } from './support/api-caller';

process.env.TABLE_NAME = 'table';
process.env.AWS_REGION = 'us-east-1';
process.env.LOG_LEVEL = 'silent';

const dynamo = mockClient(DynamoDBDocumentClient);

beforeEach(() => {
  dynamo.reset();
  tableKnowsCaller(dynamo, ['assets:create']);
  dynamo.on(UpdateCommand).resolves({ Attributes: { request_count: 1 } });
});

/** An upload-url body whose metadata nests arrays so that the whole body is `depth` levels deep. */
function bodyNestedTo(depth: number): string {
  const arrays = depth - 2;
  return JSON.stringify({ filename: 'a.png', content_type: 'image/png', size_bytes: 1, purpose: 'general' }).replace(
    /}$/,
    `,"metadata":{"deep":${'['.repeat(arrays)}${']'.repeat(arrays)}}}`,
  );
}

/** Runs the upload-url pipeline; the operation records what it received and answers a sentinel 413. */
async function send(body: string) {
  const received: ApiRequest<'createAssetUploadUrl'>['body'][] = [];
  const handler = apiHandler(createAssetUploadUrl, async (request) => {
    received.push(request.body);
    throw new ApiError('ASSET_UPLOAD_TOO_LARGE', 'The operation ran.');
  });
  const event = callerEvent('POST', '/assets/upload-url', {
    body,
    headers: { 'content-type': 'application/json' },
  });
  const response = (await handler(event, {} as Context)) as APIGatewayProxyStructuredResultV2;
  return { response, error: JSON.parse(response.body as string).error as { code: string; message: string }, received };
}

describe('the nesting bound of JSON bodies', () => {
  it('refuses a body nested deeper than the bound with 400 VALIDATION_FAILED, not a stack overflow', async () => {
    // 20,000 levels fit in 64 KB; copying them for validation used to overflow the stack (500).
    const { response, error, received } = await send(bodyNestedTo(20_000));
    expect(response.statusCode).toBe(400);
    expect(error).toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringContaining(`${MAX_BODY_NESTING}`) });
    expect(response.headers).toMatchObject({ 'X-RateLimit-Limit': '60' });
    expect(received).toEqual([]);
  });

  it('refuses one level past the bound and passes a body exactly at it on to the operation', async () => {
    expect((await send(bodyNestedTo(MAX_BODY_NESTING + 1))).error.code).toBe('VALIDATION_FAILED');
    const { error, received } = await send(bodyNestedTo(MAX_BODY_NESTING));
    expect(error.code).toBe('ASSET_UPLOAD_TOO_LARGE');
    expect(JSON.stringify(received[0]?.metadata)).toBe(
      `{"deep":${'['.repeat(MAX_BODY_NESTING - 2)}${']'.repeat(MAX_BODY_NESTING - 2)}}`,
    );
  });

  it('does not count brackets inside strings, escaped quotes included', async () => {
    const text = `\\"${'['.repeat(MAX_BODY_NESTING + 10)}`;
    const body = JSON.stringify({ filename: 'a.png', content_type: 'image/png', size_bytes: 1, purpose: 'general' });
    const { error } = await send(body.replace(/}$/, `,"metadata":{"note":"${text}"}}`));
    expect(error.code).toBe('ASSET_UPLOAD_TOO_LARGE');
  });
});
