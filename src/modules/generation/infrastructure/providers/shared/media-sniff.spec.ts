import { describe, expect, it } from '@jest/globals';
import { mp4DurationSeconds, sniffMediaType } from './media-sniff.js';

function box(type: string, payload: Buffer): Buffer {
  const header = Buffer.alloc(8);
  header.writeUInt32BE(8 + payload.length, 0);
  header.write(type, 4, 'latin1');
  return Buffer.concat([header, payload]);
}

function mvhd(version: 0 | 1, timescale: number, duration: number): Buffer {
  if (version === 0) {
    const b = Buffer.alloc(100);
    b.writeUInt32BE(timescale, 12);
    b.writeUInt32BE(duration, 16);
    return box('mvhd', b);
  }
  const b = Buffer.alloc(112);
  b[0] = 1;
  b.writeUInt32BE(timescale, 20);
  b.writeBigUInt64BE(BigInt(duration), 24);
  return box('mvhd', b);
}

describe('sniffMediaType', () => {
  it.each([
    [Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'), 'image/png'],
    [Buffer.from('ffd8ffe000104a4649460001', 'hex'), 'image/jpeg'],
    [Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00', 'latin1'), 'image/gif'],
    [Buffer.from('RIFF\x00\x00\x00\x00WEBPVP8 ', 'latin1'), 'image/webp'],
    [Buffer.from('\x00\x00\x00\x18ftypmp42\x00\x00', 'latin1'), 'video/mp4'],
    [Buffer.from('\x00\x00\x00\x14ftypqt  \x00\x00', 'latin1'), 'video/quicktime'],
    [Buffer.from('1a45dfa3a3428681010000', 'hex'), 'video/webm'],
    [Buffer.from('<html><body></body>', 'latin1'), null],
  ])('recognises %#', (bytes, type) => {
    expect(sniffMediaType(Buffer.concat([bytes, Buffer.alloc(4)]))).toBe(type);
  });
});

describe('mp4DurationSeconds', () => {
  const ftyp = box('ftyp', Buffer.from('isom\x00\x00\x02\x00', 'latin1'));

  it('reads a version 0 movie header after other boxes', () => {
    const file = Buffer.concat([ftyp, box('free', Buffer.alloc(10)), box('moov', Buffer.concat([mvhd(0, 1000, 6500), box('trak', Buffer.alloc(4))]))]);
    expect(mp4DurationSeconds(file)).toBe(6.5);
  });

  it('reads a version 1 movie header', () => {
    expect(mp4DurationSeconds(Buffer.concat([ftyp, box('moov', mvhd(1, 600, 6000))]))).toBe(10);
  });

  it('has nothing to say about a file without a movie header', () => {
    expect(mp4DurationSeconds(Buffer.concat([ftyp, box('mdat', Buffer.alloc(32))]))).toBeUndefined();
    expect(mp4DurationSeconds(Buffer.from('not an mp4 at all'))).toBeUndefined();
  });
});
