import { describe, expect, it } from '@jest/globals';
import { inflateRawSync } from 'node:zlib';
import { zipArchive } from './zip-archive.js';

describe('zipArchive', () => {
  it('writes a ZIP whose central directory lists every entry, JSON deflated and media stored', async () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);
    const zip = await zipArchive([{ path: 'characters.json', body: Buffer.from('{"a":1}') }, { path: 'media/characters/char_1/r.png', body: png }], new Date('2026-01-01T00:00:00Z'));
    const eocd = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
    expect(zip.readUInt16LE(eocd + 10)).toBe(2);
    let at = zip.readUInt32LE(eocd + 16);
    const seen: Array<[string, number, string]> = [];
    for (let i = 0; i < 2; i++) {
      const method = zip.readUInt16LE(at + 10);
      const size = zip.readUInt32LE(at + 20);
      const nameLength = zip.readUInt16LE(at + 28);
      const name = zip.subarray(at + 46, at + 46 + nameLength).toString();
      const local = zip.readUInt32LE(at + 42);
      const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
      const data = zip.subarray(start, start + size);
      seen.push([name, method, (method === 8 ? inflateRawSync(data) : data).toString('hex')]);
      at += 46 + nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
    }
    expect(seen).toEqual([
      ['characters.json', 8, Buffer.from('{"a":1}').toString('hex')],
      ['media/characters/char_1/r.png', 0, png.toString('hex')],
    ]);
  });
});
