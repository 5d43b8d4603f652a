import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

const definedHeaders = (headers: Readonly<Record<string, string | undefined>>) =>
  Object.fromEntries(Object.entries(headers).filter((entry): entry is [string, string] => entry[1] !== undefined));

/**
 * PUTs a file to an asset's upload URL as a client would, streamed chunk by chunk with the
 * `upload_headers` the API answered and the Content-Length the URL was signed for; answers the
 * response's status and body. (fetch holds a streamed request body in memory; node:http sends it
 * as it comes.)
 */
export async function putToUploadUrl(
  uploadUrl: string,
  uploadHeaders: Readonly<Record<string, string | undefined>>,
  sizeBytes: number,
  chunks: Iterable<Buffer> | AsyncIterable<Buffer>,
): Promise<{ status: number; body: string }> {
  const send = new URL(uploadUrl).protocol === 'https:' ? httpsRequest : httpRequest;
  const request = send(uploadUrl, {
    method: 'PUT',
    headers: { ...definedHeaders(uploadHeaders), 'Content-Length': sizeBytes },
  });
  const answered = new Promise<{ status: number; body: string }>((resolve, reject) => {
    request.on('response', (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (text: string) => (body += text));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      response.on('error', reject);
    });
    request.on('error', reject);
  });
  await pipeline(Readable.from(chunks), request);
  return answered;
}
