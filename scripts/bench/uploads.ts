import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';

/** The chunks of a large upload that only has to pass confirmation: an MP4 header, then zeros. */
export function* headerThenZeros({ sizeBytes, chunkBytes }: { sizeBytes: number; chunkBytes: number }) {
  const zeros = Buffer.alloc(chunkBytes);
  const first = Buffer.alloc(chunkBytes);
  Buffer.from([0, 0, 0, 0x18, ...Buffer.from('ftypisom'), 0, 0, 2, 0, ...Buffer.from('isommp41')]).copy(first);
  for (let offset = 0; offset < sizeBytes; offset += chunkBytes) {
    yield (offset === 0 ? first : zeros).subarray(0, Math.min(chunkBytes, sizeBytes - offset));
  }
}

/** The chunks, each shown to `see` on its way. */
export function* tapped(chunks: Iterable<Buffer>, see: (chunk: Buffer) => void) {
  for (const chunk of chunks) {
    see(chunk);
    yield chunk;
  }
}

/** The SHA-256 of what a URL serves, read as it streams in. */
export async function sha256Of(url: string): Promise<string> {
  const response = await fetch(url);
  if (response.status !== 200 || !response.body) throw new Error(`GET ${url} answered ${response.status}`);
  const hash = createHash('sha256');
  for await (const chunk of response.body) hash.update(chunk);
  return hash.digest('hex');
}

/** A file in parts of `partBytes` (the last one shorter), one part in memory at a time. */
export async function* fileParts(path: string, partBytes: number) {
  const file = await open(path);
  try {
    for (let position = 0; ;) {
      const { bytesRead, buffer } = await file.read(Buffer.alloc(partBytes), 0, partBytes, position);
      if (bytesRead === 0) return;
      position += bytesRead;
      yield buffer.subarray(0, bytesRead);
    }
  } finally {
    await file.close();
  }
}
