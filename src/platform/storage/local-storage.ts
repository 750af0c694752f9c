import { mkdir, open, rename, rm, readFile, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { dirname, join, resolve, sep } from 'node:path';
import type { MediaSigner } from './media-signature.js';
import { storageWriteError } from './storage-errors.js';
import { assertStorageKey, contentTypeOfKey, isStorageKey, MEDIA_PATH } from './storage-keys.js';
import { Storage, type ObjectStream, type StoredObject } from './storage.types.js';

/** The file writes `put` makes (a test stands in a disk that fails them). */
export interface FileWrites {
  mkdir: typeof mkdir;
  writeFile: typeof writeFile;
  rename: typeof rename;
}

const DISK: FileWrites = { mkdir, writeFile, rename };

/** Files under one root directory, served back by the media route to holders of a signed URL. */
export class LocalStorage extends Storage {
  private readonly root: string;

  constructor(
    root: string,
    private readonly publicUrl: string,
    private readonly signer: MediaSigner,
    private readonly disk: FileWrites = DISK,
  ) {
    super();
    this.root = resolve(root);
  }

  async put(key: string, body: Buffer, _contentType: string): Promise<StoredObject> {
    const path = this.pathOf(key);
    // Write then rename, so a reader never sees half a file. A failed write (a full or read-only
    // disk) leaves nothing behind: the partial temporary file is removed.
    const tmp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      await this.disk.mkdir(dirname(path), { recursive: true });
      await this.disk.writeFile(tmp, body, { mode: 0o640 });
      await this.disk.rename(tmp, path);
    } catch (err) {
      await rm(tmp, { force: true }).catch(() => undefined);
      throw storageWriteError(err);
    }
    return { key, url: this.urlFor(key) };
  }

  async get(key: string): Promise<{ body: Buffer; contentType: string } | null> {
    if (!isStorageKey(key)) return null;
    try {
      return { body: await readFile(this.pathOf(key)), contentType: contentTypeOfKey(key) };
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
  }

  async open(key: string): Promise<ObjectStream | null> {
    if (!isStorageKey(key)) return null;
    const path = this.pathOf(key);
    try {
      // Opened before it is measured: a file removed meanwhile (a regeneration replacing media) is
      // either served whole from its open descriptor or answered as missing, never cut mid-answer.
      const handle = await open(path, 'r');
      const info = await handle.stat().catch(async (err: unknown) => {
        await handle.close();
        throw err;
      });
      if (!info.isFile()) {
        await handle.close();
        return null;
      }
      return { stream: handle.createReadStream(), contentType: contentTypeOfKey(key), size: info.size };
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    if (!isStorageKey(key)) return;
    await rm(this.pathOf(key), { force: true });
  }

  urlFor(key: string): string {
    return `${this.publicUrl}${MEDIA_PATH}/${key}`;
  }

  signedUrl(key: string, expires: number): string {
    assertStorageKey(key);
    return `${this.urlFor(key)}?${this.signer.query(key, expires)}`;
  }

  private pathOf(key: string): string {
    assertStorageKey(key);
    const path = resolve(join(this.root, key));
    // Belt and braces: the key shape already rules out leaving the root.
    if (!path.startsWith(this.root + sep)) throw new Error('storage key escapes the storage root');
    return path;
  }
}

function isMissing(err: unknown): boolean {
  const code = (err as { code?: string })?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}
