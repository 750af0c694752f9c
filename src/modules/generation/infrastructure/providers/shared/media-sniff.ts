/** Media types the pipeline stores, recognised by their first bytes (never by what a server claims). */
export type SniffedType = 'image/png' | 'image/jpeg' | 'image/webp' | 'image/gif' | 'video/mp4' | 'video/quicktime' | 'video/webm';

export function sniffMediaType(bytes: Buffer): SniffedType | null {
  if (bytes.length < 12) return null;
  if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'image/png';
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  const ascii = (from: number, to: number) => bytes.subarray(from, to).toString('latin1');
  if (ascii(0, 6) === 'GIF87a' || ascii(0, 6) === 'GIF89a') return 'image/gif';
  if (ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP') return 'image/webp';
  if (ascii(4, 8) === 'ftyp') return ascii(8, 12) === 'qt  ' ? 'video/quicktime' : 'video/mp4';
  if (bytes.readUInt32BE(0) === 0x1a45dfa3) return 'video/webm';
  return null;
}

export function isImageType(type: SniffedType | null): type is 'image/png' | 'image/jpeg' | 'image/webp' | 'image/gif' {
  return type !== null && type.startsWith('image/');
}

/**
 * The duration an MP4/MOV declares in its movie header (moov/mvhd), in seconds; undefined when
 * the file has none we can read. Walking two box levels is enough: mvhd sits directly in moov.
 */
export function mp4DurationSeconds(bytes: Buffer): number | undefined {
  const moov = findBox(bytes, 0, bytes.length, 'moov');
  const mvhd = moov && findBox(bytes, moov.start, moov.end, 'mvhd');
  if (!mvhd || mvhd.end - mvhd.start < 20) return undefined;
  const version = bytes[mvhd.start];
  const timescale = bytes.readUInt32BE(mvhd.start + (version === 1 ? 20 : 12));
  const duration = version === 1 ? Number(bytes.readBigUInt64BE(mvhd.start + 24)) : bytes.readUInt32BE(mvhd.start + 16);
  return timescale > 0 ? duration / timescale : undefined;
}

function findBox(bytes: Buffer, from: number, to: number, type: string): { start: number; end: number } | undefined {
  for (let at = from; at + 8 <= to; ) {
    let size = bytes.readUInt32BE(at);
    let header = 8;
    if (size === 1 && at + 16 <= to) {
      size = Number(bytes.readBigUInt64BE(at + 8));
      header = 16;
    } else if (size === 0) {
      size = to - at;
    }
    if (size < header || at + size > to) return undefined;
    if (bytes.toString('latin1', at + 4, at + 8) === type) return { start: at + header, end: at + size };
    at += size;
  }
  return undefined;
}
