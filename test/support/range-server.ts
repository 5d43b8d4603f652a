import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An HTTP server of one file that answers range requests as S3 does, and drops its connections
 * part-way through: at `cutAtFraction` of the file, the first connection that reaches it is closed
 * (`once`), or every one is, so that nothing past it can be read (`always`).
 */
export interface CuttingServer {
  url: string;
  /** The connections that were closed before the end of what they asked for. */
  cuts(): number;
  close(): Promise<void>;
}

export async function serveCutting(
  path: string,
  options: { cutAtFraction: number; cut: 'once' | 'always' },
): Promise<CuttingServer> {
  const data = await readFile(path);
  const cutAt = Math.floor(data.length * options.cutAtFraction);
  let cuts = 0;
  const server: Server = createServer((request, response) => {
    const range = /bytes=(\d+)-(\d*)/.exec(request.headers.range ?? '');
    const start = range ? Number(range[1]) : 0;
    const end = range?.[2] ? Number(range[2]) : data.length - 1;
    const cutting = end >= cutAt && (options.cut === 'always' || cuts === 0);
    if (cutting && start >= cutAt) {
      cuts += 1;
      request.socket.destroy();
      return;
    }
    response.writeHead(range ? 206 : 200, {
      'content-length': end - start + 1,
      'accept-ranges': 'bytes',
      'content-type': 'video/mp4',
      ...(range ? { 'content-range': `bytes ${start}-${end}/${data.length}` } : {}),
    });
    if (!cutting) {
      response.end(data.subarray(start, end + 1));
      return;
    }
    cuts += 1;
    response.write(data.subarray(start, cutAt), () => request.socket.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/source.mp4?X-Amz-Signature=secret-signature`,
    cuts: () => cuts,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
