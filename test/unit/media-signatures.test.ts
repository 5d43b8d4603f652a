import { matchesDeclaredType, type MediaType } from '#domain/assets/media-signatures';

const bytes = (...parts: (string | number[])[]) =>
  Uint8Array.from(parts.flatMap((part) => (typeof part === 'string' ? [...Buffer.from(part, 'latin1')] : part)));

const samples: Record<MediaType, Uint8Array> = {
  'image/png': bytes([0x89], 'PNG', [0x0d, 0x0a, 0x1a, 0x0a], [0, 0, 0, 13], 'IHDR'),
  'image/jpeg': bytes([0xff, 0xd8, 0xff, 0xe0], [0, 16], 'JFIF'),
  'image/webp': bytes('RIFF', [0x24, 0, 0, 0], 'WEBPVP8 '),
  'video/mp4': bytes([0, 0, 0, 0x20], 'ftypisom', [0, 0, 2, 0], 'isomiso2avc1mp41'),
  'video/quicktime': bytes([0, 0, 0, 0x14], 'ftypqt  ', [0, 0, 2, 0], 'qt  '),
  'video/webm': bytes([0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x86, 0x81, 0x01, 0x42, 0x82, 0x84], 'webm'),
};

describe('media signature sniffing', () => {
  it.each(Object.entries(samples))('recognises %s from its first bytes', (type, head) => {
    expect(matchesDeclaredType(type as MediaType, head)).toBe(true);
  });

  it.each(Object.keys(samples))('refuses plain text declared as %s', (type) => {
    expect(matchesDeclaredType(type as MediaType, bytes('hello, this is not media at all'))).toBe(false);
  });

  it('refuses a PNG declared as JPEG and an MP4 declared as WebM', () => {
    expect(matchesDeclaredType('image/jpeg', samples['image/png'])).toBe(false);
    expect(matchesDeclaredType('video/webm', samples['video/mp4'])).toBe(false);
  });

  it('refuses a Matroska file that is not WebM', () => {
    expect(matchesDeclaredType('video/webm', bytes([0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x82, 0x88], 'matroska'))).toBe(
      false,
    );
  });

  it('accepts an older QuickTime file that opens with a moov box', () => {
    expect(matchesDeclaredType('video/quicktime', bytes([0, 0, 0, 8], 'moov'))).toBe(true);
  });
});
