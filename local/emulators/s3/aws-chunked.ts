import { Transform, type TransformCallback } from 'node:stream';
import { S3Error } from './errors';

/** A chunk header or trailer line longer than this is not aws-chunked encoding. */
const MAX_LINE_BYTES = 4096;

const malformed = (detail: string) =>
  new S3Error(400, 'IncompleteBody', `The aws-chunked request body is malformed: ${detail}`);

/**
 * Decodes a body sent with `Content-Encoding: aws-chunked` (`<hex size>[;chunk-signature=…]\r\n`,
 * the bytes, `\r\n`, …, a zero-size chunk, then trailers such as `x-amz-checksum-crc32:…`), as the
 * SDK sends streamed bodies whose checksum it computes on the way. Chunk signatures are not
 * checked; the trailers are collected for the checksum check.
 */
export class AwsChunkedDecoder extends Transform {
  readonly trailers: Record<string, string> = {};
  private pending = Buffer.alloc(0);
  private state: 'header' | 'data' | 'data-end' | 'trailers' | 'done' = 'header';
  private remaining = 0;

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    try {
      this.consume(chunk);
      callback();
    } catch (error) {
      callback(error as Error);
    }
  }

  override _flush(callback: TransformCallback): void {
    callback(this.state === 'done' ? undefined : malformed('it ends before its last chunk and trailers'));
  }

  private consume(input: Buffer): void {
    let buffer = this.pending.length > 0 ? Buffer.concat([this.pending, input]) : input;
    this.pending = Buffer.alloc(0);
    while (buffer.length > 0) {
      if (this.state === 'data') {
        const take = Math.min(this.remaining, buffer.length);
        this.push(buffer.subarray(0, take));
        buffer = buffer.subarray(take);
        this.remaining -= take;
        if (this.remaining === 0) this.state = 'data-end';
        continue;
      }
      if (this.state === 'done') throw malformed('bytes follow its trailers');
      const lineEnd = buffer.indexOf('\r\n');
      if (lineEnd === -1) {
        if (buffer.length > MAX_LINE_BYTES) throw malformed('a line is too long');
        this.pending = Buffer.from(buffer);
        return;
      }
      const line = buffer.subarray(0, lineEnd).toString('latin1');
      buffer = buffer.subarray(lineEnd + 2);
      this.line(line);
    }
  }

  private line(line: string): void {
    switch (this.state) {
      case 'header': {
        const size = Number.parseInt(line.split(';')[0]!, 16);
        if (!/^[0-9a-fA-F]+$/.test(line.split(';')[0]!) || !Number.isSafeInteger(size)) {
          throw malformed(`bad chunk size line "${line.slice(0, 64)}"`);
        }
        this.remaining = size;
        this.state = size === 0 ? 'trailers' : 'data';
        return;
      }
      case 'data-end':
        if (line !== '') throw malformed('a chunk is longer than its size');
        this.state = 'header';
        return;
      case 'trailers': {
        if (line === '') {
          this.state = 'done';
          return;
        }
        const colon = line.indexOf(':');
        if (colon === -1) throw malformed(`bad trailer "${line.slice(0, 64)}"`);
        this.trailers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
        return;
      }
      default:
        throw malformed('unexpected state');
    }
  }
}
