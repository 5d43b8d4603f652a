import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import type { APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import fc from 'fast-check';
import { parse } from 'yaml';
import { operation as getMe } from '#contract/operations/getMe';
import { DOCUMENT_ETAG, namesCurrentVersion, servedDocument } from '#domain/reference/served-document';
import { publicApiHandler } from '#http/api-handler';
import { handler } from '../../lambdas/handlers/reference/openapi';
import { callerEvent } from './support/api-caller';

process.env.TABLE_NAME = 'table';
process.env.AWS_REGION = 'us-east-1';

const dynamo = mockClient(DynamoDBDocumentClient);
const source = readFileSync('docs/openapi.yaml', 'utf8');

beforeEach(() => dynamo.reset());

async function get(headers: Record<string, string>, query?: Record<string, string>) {
  const event = { ...callerEvent('GET', '/openapi.json', { headers }), queryStringParameters: query };
  return (await handler(event, {} as Context)) as APIGatewayProxyStructuredResultV2;
}

describe('the served contract', () => {
  it('is docs/openapi.yaml as JSON, tagged with its version and cacheable by anyone', () => {
    const served = servedDocument(undefined);
    expect(served).toEqual({
      status: 200,
      body: parse(source),
      headers: { ETag: DOCUMENT_ETAG, 'Cache-Control': 'public, max-age=300' },
    });
    expect(DOCUMENT_ETAG).toBe(`"${createHash('sha256').update(source).digest('hex').slice(0, 32)}"`);
  });

  it('is not sent again to a client whose If-None-Match names its version, strong, weak or in a list', () => {
    for (const header of [DOCUMENT_ETAG, `W/${DOCUMENT_ETAG}`, `"other", ${DOCUMENT_ETAG}`, '*']) {
      expect([header, servedDocument(header).status]).toEqual([header, 304]);
    }
  });

  it('is sent whole for any If-None-Match that does not name its version', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (header) => {
        fc.pre(!header.includes(DOCUMENT_ETAG) && !header.split(',').some((tag) => tag.trim() === '*'));
        expect(namesCurrentVersion(header)).toBe(false);
      }),
    );
  });

  it('answers without reading the table, whatever the Authorization header, and carries no rate-limit headers', async () => {
    const keys: Record<string, string>[] = [{ authorization: '' }, { authorization: 'Bearer svc_test_nope_nope' }];
    for (const headers of keys) {
      const response = await get(headers);
      expect(response.statusCode).toBe(200);
      expect(JSON.parse(response.body as string)).toEqual(parse(source));
      expect(response.headers).toMatchObject({ ETag: DOCUMENT_ETAG, 'Cache-Control': 'public, max-age=300' });
      expect(Object.keys(response.headers ?? {}).filter((name) => name.startsWith('X-RateLimit'))).toEqual([]);
    }
    const notModified = await get({ 'if-none-match': DOCUMENT_ETAG });
    expect([notModified.statusCode, notModified.body]).toEqual([304, '']);
    expect(dynamo.calls()).toHaveLength(0);
  });

  it('refuses an unknown query parameter like every operation', async () => {
    const response = await get({}, { format: 'yaml' });
    expect(response.statusCode).toBe(400);
    expect(JSON.parse(response.body as string)).toMatchObject({ error: { code: 'VALIDATION_FAILED' } });
  });

  it('is the only way to build a handler without a key: a keyed operation refuses it', () => {
    expect(() => publicApiHandler(getMe, async () => ({ status: 200, body: {} as never }))).toThrow(
      'getMe is not a public route: use apiHandler',
    );
  });
});
