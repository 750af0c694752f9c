import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeS3, type FakeS3 } from '../../../test/fakes/s3-server.js';
import { LocalStorage } from './local-storage.js';
import { MediaSigner } from './media-signature.js';
import { S3Storage } from './s3-storage.js';
import { contentTypeOfKey, isStorageKey } from './storage-keys.js';
import type { Storage } from './storage.types.js';

const KEY = 'characters/char_01HZX6FQJ5N6E7T2M3A4B5C6D7/ref_01HZX6FQJ5N6E7T2M3A4B5C6D8.png';

async function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(Buffer.from(c as Buffer));
  return Buffer.concat(chunks);
}

describe('storage keys', () => {
  it('accepts the shapes we build and refuses traversal, hidden files and unknown extensions', () => {
    expect(isStorageKey(KEY)).toBe(true);
    expect(isStorageKey('content/cnt_1/image-0.webp')).toBe(true);
    for (const bad of ['../etc/passwd', 'characters/../x.png', 'characters/.hidden.png', 'x.png', '/abs/x.png', 'a//b.png',
      'a/b.exe', 'a/b.png.exe', 'a\\b/c.png', 'a/b c.png', 'a/%2e%2e.png', `a/${'x'.repeat(300)}.png`, 'a/b/c/d/e/f.png']) {
      expect([bad, isStorageKey(bad)]).toEqual([bad, false]);
    }
    expect(contentTypeOfKey(KEY)).toBe('image/png');
    expect(contentTypeOfKey('a/b.jpg')).toBe('image/jpeg');
  });
});

function behavesLikeStorage(name: string, make: () => Storage, urlPrefix: () => string) {
  describe(name, () => {
    it('puts, gets, streams, copies and deletes an object', async () => {
      const storage = make();
      const body = Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3, 4, 5]);
      const stored = await storage.put(KEY, body, 'image/png');
      expect(stored).toEqual({ key: KEY, url: `${urlPrefix()}/${KEY}` });
      expect((await storage.get(KEY))?.body.equals(body)).toBe(true);
      const opened = await storage.open(KEY);
      expect(opened?.contentType).toBe('image/png');
      expect((await readAll(opened!.stream)).equals(body)).toBe(true);
      const copyKey = KEY.replace('ref_01HZX6FQJ5N6E7T2M3A4B5C6D8', 'ref_01HZX6FQJ5N6E7T2M3A4B5C6D9');
      await storage.copy(KEY, copyKey);
      expect((await storage.get(copyKey))?.body.equals(body)).toBe(true);
      await storage.delete(KEY);
      expect(await storage.get(KEY)).toBeNull();
      expect(await storage.open(KEY)).toBeNull();
      await expect(storage.delete(KEY)).resolves.toBeUndefined();
      expect(await storage.copy(KEY, copyKey.replace('D9', 'DA'))).toBeNull();
    });

    it('refuses to write a malformed key and answers missing for one on read', async () => {
      const storage = make();
      await expect(storage.put('../escape.png', Buffer.from('x'), 'image/png')).rejects.toThrow(/invalid storage key/);
      expect(await storage.get('../escape.png')).toBeNull();
      expect(await storage.open('a/../../b.png')).toBeNull();
    });
  });
}

describe('adapters', () => {
  let dir: string;
  let s3: FakeS3;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'storage-spec-'));
    s3 = await startFakeS3();
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await s3.close();
  });

  behavesLikeStorage('LocalStorage', () => new LocalStorage(dir, 'http://api.test', new MediaSigner('k'.repeat(43))), () => 'http://api.test/api/v1/media');
  behavesLikeStorage(
    'S3Storage against a signature-checking fake',
    () => new S3Storage({ endpoint: s3.url, bucket: s3.bucket, region: s3.region, accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey, publicUrl: 'http://api.test' }),
    () => 'http://api.test/api/v1/media',
  );

  it('S3Storage sends path-style signed requests and fails loudly on a bad secret', async () => {
    const good = new S3Storage({ endpoint: s3.url, bucket: s3.bucket, region: s3.region, accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey, publicUrl: 'http://api.test', publicBaseUrl: 'https://cdn.test' });
    const stored = await good.put('a/b.webp', Buffer.from('RIFF....WEBP'), 'image/webp');
    expect(stored.url).toBe('https://cdn.test/a/b.webp');
    expect(s3.objects.get('a/b.webp')?.contentType).toBe('image/webp');
    expect(s3.requests.at(-1)).toEqual({ method: 'PUT', path: `/${s3.bucket}/a/b.webp`, status: 200 });
    const bad = new S3Storage({ endpoint: s3.url, bucket: s3.bucket, region: s3.region, accessKeyId: s3.accessKeyId, secretAccessKey: 'wrong', publicUrl: 'http://api.test' });
    await expect(bad.put('a/c.png', Buffer.from('x'), 'image/png')).rejects.toThrow(/answered 403 SignatureDoesNotMatch/);
    await expect(bad.get('a/b.webp')).rejects.toThrow(/403/);
  });

  it('S3Storage presigns GETs the store honours until they expire, with a private cache life', async () => {
    let now = Date.now();
    const storage = new S3Storage(
      { endpoint: s3.url, bucket: s3.bucket, region: s3.region, accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey, publicUrl: 'http://api.test' },
      fetch,
      () => new Date(now),
    );
    await storage.put('a/presigned.png', Buffer.from('png bytes'), 'image/png');
    const url = storage.signedUrl('a/presigned.png', Math.floor(now / 1000) + 120);
    expect(url).toMatch(/X-Amz-Expires=12\d&/);
    expect(url).toContain('response-cache-control=private%2C%20max-age%3D12');
    const served = await fetch(url);
    expect(served.status).toBe(200);
    expect(served.headers.get('cache-control')).toMatch(/^private, max-age=12\d$/);
    expect(Buffer.from(await served.arrayBuffer()).toString()).toBe('png bytes');
    expect((await fetch(url.replace('a%2Fpresigned', 'a/presigned').replace('presigned.png', 'other.png'))).status).toBe(403);
    expect((await fetch(url.replace(/X-Amz-Expires=\d+/, 'X-Amz-Expires=999'))).status).toBe(403);
    now -= 10 * 60_000;
    const expired = storage.signedUrl('a/presigned.png', Math.floor(now / 1000) + 60);
    expect((await fetch(expired)).status).toBe(403);
  });
});
