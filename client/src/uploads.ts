import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** An upload's bytes, read as they are sent. */
export type UploadChunks = Iterable<Uint8Array> | AsyncIterable<Uint8Array>;

const definedHeaders = (headers: Readonly<Record<string, string | undefined>>) =>
  Object.fromEntries(Object.entries(headers).filter((entry): entry is [string, string] => entry[1] !== undefined));

/**
 * PUTs a file to an asset's `upload_url` with the `upload_headers` the API answered and the
 * Content-Length the URL was signed for, streamed chunk by chunk; answers the response's status and
 * body. Not through fetch: fetch reads a request body as fast as it can, whatever the connection
 * sends, and held a 434 MB file whole in memory (2 GiB is the plan's limit); node:http waits for
 * the connection, and holds a few chunks.
 */
export async function putToUploadUrl(
  uploadUrl: string,
  uploadHeaders: Readonly<Record<string, string | undefined>>,
  sizeBytes: number,
  chunks: UploadChunks,
  signal?: AbortSignal,
): Promise<{ status: number; body: string }> {
  const send = new URL(uploadUrl).protocol === 'https:' ? httpsRequest : httpRequest;
  const request = send(uploadUrl, {
    method: 'PUT',
    headers: { ...definedHeaders(uploadHeaders), 'Content-Length': sizeBytes },
    signal,
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
  // Both awaited at once: a failed connection rejects both, and neither rejection goes unhandled.
  const [, answer] = await Promise.all([pipeline(Readable.from(chunks), request), answered]);
  return answer;
}
