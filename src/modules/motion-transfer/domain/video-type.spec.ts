import { describe, expect, it } from '@jest/globals';
import { sniffVideoType } from './video-type.js';

function ftyp(brand: string, size = 24): Buffer {
  const box = Buffer.alloc(size + 16);
  box.writeUInt32BE(size, 0);
  box.write('ftyp', 4, 'latin1');
  box.write(brand, 8, 'latin1');
  box.write('isomiso2', 16, 'latin1');
  return box;
}

function ebml(docType: string): Buffer {
  const body = Buffer.concat([
    Buffer.from([0x42, 0x86, 0x81, 0x01]), // EBMLVersion 1
    Buffer.from([0x42, 0x82, 0x80 | docType.length]),
    Buffer.from(docType, 'latin1'),
    Buffer.from([0x42, 0x87, 0x81, 0x02]), // DocTypeVersion 2
  ]);
  return Buffer.concat([Buffer.from([0x1a, 0x45, 0xdf, 0xa3, 0x80 | body.length]), body, Buffer.alloc(32)]);
}

describe('video magic-byte sniffing', () => {
  it('recognises MP4 by its ftyp box, whatever the (video) brand', () => {
    for (const brand of ['isom', 'mp42', 'avc1', 'M4V ', 'dash']) {
      expect(sniffVideoType(ftyp(brand))).toEqual({ mime: 'video/mp4', ext: 'mp4' });
    }
  });

  it('recognises MOV by the QuickTime brand', () => {
    expect(sniffVideoType(ftyp('qt  ', 20))).toEqual({ mime: 'video/quicktime', ext: 'mov' });
  });

  it('recognises WebM by the EBML header with DocType webm', () => {
    expect(sniffVideoType(ebml('webm'))).toEqual({ mime: 'video/webm', ext: 'webm' });
  });

  it('refuses still images and audio that share the ISO container', () => {
    for (const brand of ['heic', 'mif1', 'avif', 'M4A ']) expect(sniffVideoType(ftyp(brand))).toBeNull();
  });

  it('refuses plain Matroska, broken headers and anything else, whatever it claims to be', () => {
    expect(sniffVideoType(ebml('matroska'))).toBeNull();
    expect(sniffVideoType(Buffer.from([0x1a, 0x45, 0xdf, 0xa3]))).toBeNull();
    expect(sniffVideoType(ftyp('isom', 4))).toBeNull();
    expect(sniffVideoType(Buffer.from('ftypisom but not at offset 4'))).toBeNull();
    expect(sniffVideoType(Buffer.from('hello, I am an mp4 video'))).toBeNull();
    expect(sniffVideoType(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]))).toBeNull();
    expect(sniffVideoType(Buffer.from('GIF89a......'))).toBeNull();
    expect(sniffVideoType(Buffer.alloc(0))).toBeNull();
  });
});
