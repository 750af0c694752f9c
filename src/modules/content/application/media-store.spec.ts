import { describe, expect, it } from '@jest/globals';
import { AppError } from '../../../core/index.js';
import { Storage, type StoredObject } from '../../../platform/storage/index.js';
import { MediaStore } from './media-store.js';

/** Objects in memory; the `failOn`-th put (1-based) fails as a full disk does. */
class MemoryStorage extends Storage {
  readonly objects = new Map<string, Buffer>();
  private puts = 0;
  constructor(private readonly failOn: number) {
    super();
  }
  async put(key: string, body: Buffer): Promise<StoredObject> {
    this.puts += 1;
    if (this.puts === this.failOn) throw new AppError('storage_unavailable', 'Media storage is unavailable; please try again later.');
    this.objects.set(key, body);
    return { key, url: this.urlFor(key) };
  }
  async get(): Promise<null> { return null; }
  async open(): Promise<null> { return null; }
  async delete(key: string): Promise<void> { this.objects.delete(key); }
  urlFor(key: string): string { return `http://media.test/${key}`; }
  signedUrl(key: string): string { return this.urlFor(key); }
}

const png = (n: number) => ({ bytes: Buffer.alloc(8, n), contentType: 'image/png' });
const SIZE = { width: 1024, height: 1024 };

describe('MediaStore on a disk that fills up', () => {
  it('an image that cannot be stored removes the images of the job already stored, and the job fails with storage_unavailable', async () => {
    const storage = new MemoryStorage(3);
    const media = new MediaStore(storage);
    await expect(media.saveImages('cnt_1', 'job_1', [png(1), png(2), png(3), png(4)], SIZE)).rejects.toMatchObject({ code: 'storage_unavailable' });
    expect([...storage.objects.keys()]).toEqual([]);
  });

  it('a thumbnail that cannot be stored removes its video', async () => {
    const storage = new MemoryStorage(2);
    const media = new MediaStore(storage);
    const out = { video: { bytes: Buffer.alloc(8), contentType: 'video/mp4' }, thumbnail: png(1) };
    await expect(media.saveVideo('cnt_1', 'job_1', out, { width: 720, height: 1280, durationSeconds: 5 })).rejects.toMatchObject({ code: 'storage_unavailable' });
    expect([...storage.objects.keys()]).toEqual([]);
  });

  it('stores every image when the disk takes them', async () => {
    const storage = new MemoryStorage(0);
    const saved = await new MediaStore(storage).saveImages('cnt_1', 'job_1', [png(1), png(2)], SIZE);
    expect(saved.map((m) => m.key)).toEqual(['content/cnt_1/job_1-0.png', 'content/cnt_1/job_1-1.png']);
    expect(storage.objects.size).toBe(2);
  });
});
