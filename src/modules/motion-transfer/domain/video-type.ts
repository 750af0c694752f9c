/** Video formats accepted as a motion reference, recognised by their leading bytes only. */
export interface VideoType {
  mime: 'video/mp4' | 'video/quicktime' | 'video/webm';
  ext: 'mp4' | 'mov' | 'webm';
}

const EBML_MAGIC = [0x1a, 0x45, 0xdf, 0xa3];
const EBML_DOCTYPE_ID = [0x42, 0x82];

/**
 * ISO base media brands that are not video although they use the same `ftyp` box: HEIF/AVIF
 * still images, audio-only MPEG-4 and Canon raw photos.
 */
const NON_VIDEO_BRANDS = new Set([
  'mif1', 'msf1', 'heic', 'heix', 'hevc', 'hevx', 'heim', 'heis', 'avif', 'avis', 'avio',
  'M4A ', 'M4B ', 'M4P ', 'F4A ', 'F4B ', 'crx ',
]);

function startsWith(buf: Uint8Array, bytes: number[], at = 0): boolean {
  return buf.length >= at + bytes.length && bytes.every((b, i) => buf[at + i] === b);
}

function ascii(buf: Uint8Array, from: number, to: number): string {
  return String.fromCharCode(...buf.subarray(from, to));
}

/** MP4 and MOV open with an `ftyp` box: 4-byte size, `ftyp`, then the major brand (`qt  ` for QuickTime). */
function sniffIsoMedia(buf: Uint8Array): VideoType | null {
  if (buf.length < 12 || ascii(buf, 4, 8) !== 'ftyp') return null;
  const boxSize = ((buf[0] << 24) | (buf[1] << 16) | (buf[2] << 8) | buf[3]) >>> 0;
  if (boxSize !== 1 && boxSize < 12) return null;
  const brand = ascii(buf, 8, 12);
  if (NON_VIDEO_BRANDS.has(brand)) return null;
  return brand === 'qt  ' ? { mime: 'video/quicktime', ext: 'mov' } : { mime: 'video/mp4', ext: 'mp4' };
}

/**
 * WebM is Matroska with DocType `webm`: the EBML magic, then (within the header) the DocType
 * element 0x4282 with a one-byte size. Plain Matroska (`matroska`) is not accepted.
 */
function sniffWebm(buf: Uint8Array): VideoType | null {
  if (!startsWith(buf, EBML_MAGIC)) return null;
  const header = buf.subarray(0, Math.min(buf.length, 64));
  for (let i = 4; i + 3 < header.length; i++) {
    if (!startsWith(header, EBML_DOCTYPE_ID, i)) continue;
    const sizeByte = header[i + 2];
    if ((sizeByte & 0x80) === 0) return null;
    const size = sizeByte & 0x7f;
    const docType = ascii(header, i + 3, Math.min(header.length, i + 3 + size));
    return docType === 'webm' ? { mime: 'video/webm', ext: 'webm' } : null;
  }
  return null;
}

export function sniffVideoType(buf: Uint8Array): VideoType | null {
  return sniffIsoMedia(buf) ?? sniffWebm(buf);
}
