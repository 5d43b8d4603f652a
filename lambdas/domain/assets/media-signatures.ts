/**
 * Recognises the six accepted media formats from their first bytes, so that a confirmed asset
 * is what it claims to be whatever name or Content-Type the uploader gave it.
 */
export const MEDIA_TYPES = [
  'image/jpeg',
  'image/png',
  'image/webp',
  'video/mp4',
  'video/quicktime',
  'video/webm',
] as const;
export type MediaType = (typeof MEDIA_TYPES)[number];

/** Enough bytes to see every signature below, including WebM's EBML DocType. */
export const SNIFF_BYTES = 64;

const ascii = (bytes: Uint8Array, start: number, end: number) =>
  Buffer.from(bytes.subarray(start, end)).toString('latin1');

const startsWith = (bytes: Uint8Array, signature: number[]) => signature.every((byte, index) => bytes[index] === byte);

/** ISO base media boxes a QuickTime file may open with (older .mov files lack `ftyp`). */
const QUICKTIME_FIRST_BOXES = ['ftyp', 'moov', 'mdat', 'wide', 'free', 'skip', 'pnot'];

export function matchesDeclaredType(contentType: MediaType, head: Uint8Array): boolean {
  switch (contentType) {
    case 'image/png':
      return startsWith(head, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    case 'image/jpeg':
      return startsWith(head, [0xff, 0xd8, 0xff]);
    case 'image/webp':
      return ascii(head, 0, 4) === 'RIFF' && ascii(head, 8, 12) === 'WEBP';
    case 'video/mp4':
      return ascii(head, 4, 8) === 'ftyp';
    case 'video/quicktime':
      return QUICKTIME_FIRST_BOXES.includes(ascii(head, 4, 8));
    case 'video/webm':
      return startsWith(head, [0x1a, 0x45, 0xdf, 0xa3]) && ascii(head, 0, head.length).includes('webm');
  }
}
