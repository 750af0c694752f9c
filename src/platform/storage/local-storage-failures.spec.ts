import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from '@jest/globals';
import { AppError } from '../../core/index.js';
import { LocalStorage, type FileWrites } from './local-storage.js';
import { MediaSigner } from './media-signature.js';
import { isStorageUnavailable, storageError } from './storage-errors.js';

const KEY = 'content/cnt_01HZX6FQJ5N6E7T2M3A4B5C6D7/job_01HZX6FQJ5N6E7T2M3A4B5C6D8-0.png';

function systemError(code: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: failed`), { code, syscall: 'write' });
}

/** Every file under `dir`, as paths relative to it. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name).slice(dir.length + 1));
}

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function storageOn(disk: FileWrites) {
  const dir = mkdtempSync(join(tmpdir(), 'local-storage-'));
  dirs.push(dir);
  return { dir, storage: new LocalStorage(dir, 'http://api.test', new MediaSigner('k'.repeat(43)), disk) };
}

describe('LocalStorage on a disk that fails writes', () => {
  it('a disk that fills mid-write: the partial temporary file is removed, and the error is storage_unavailable', async () => {
    // Writes half the bytes, then fails as a full disk does.
    const full: FileWrites = {
      mkdir, rename,
      writeFile: (async (path: string, body: Buffer) => {
        await writeFile(path, body.subarray(0, body.length / 2));
        throw systemError('ENOSPC');
      }) as unknown as FileWrites['writeFile'],
    };
    const { dir, storage } = storageOn(full);
    const err = await storage.put(KEY, Buffer.alloc(4096, 7), 'image/png').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ code: 'storage_unavailable', details: { reason: 'ENOSPC' } });
    expect(filesUnder(dir)).toEqual([]);
  });

  it('a read-only disk: storage_unavailable, nothing left', async () => {
    const readOnly: FileWrites = {
      writeFile, rename,
      mkdir: async () => { throw systemError('EROFS'); },
    };
    const { dir, storage } = storageOn(readOnly);
    await expect(storage.put(KEY, Buffer.alloc(16), 'image/png')).rejects.toMatchObject({ code: 'storage_unavailable', details: { reason: 'EROFS' } });
    expect(filesUnder(dir)).toEqual([]);
  });

  it('a folder that cannot be made (a recursive mkdir on a full disk answers ENOENT): storage_unavailable', async () => {
    const noFolder: FileWrites = {
      writeFile, rename,
      mkdir: async () => { throw systemError('ENOENT'); },
    };
    const { dir, storage } = storageOn(noFolder);
    await expect(storage.put(KEY, Buffer.alloc(16), 'image/png')).rejects.toMatchObject({ code: 'storage_unavailable', details: { reason: 'ENOENT' } });
    expect(filesUnder(dir)).toEqual([]);
  });

  it('a failed rename removes the written temporary file', async () => {
    const noRename: FileWrites = { mkdir, writeFile, rename: (async () => { throw systemError('EIO'); }) };
    const { dir, storage } = storageOn(noRename);
    await expect(storage.put(KEY, Buffer.alloc(16), 'image/png')).rejects.toMatchObject({ code: 'storage_unavailable' });
    expect(filesUnder(dir)).toEqual([]);
  });

  it('another failure is passed on as it is', async () => {
    const odd: FileWrites = { mkdir, rename, writeFile: (async () => { throw new TypeError('bad body'); }) as FileWrites['writeFile'] };
    const { storage } = storageOn(odd);
    await expect(storage.put(KEY, Buffer.alloc(16), 'image/png')).rejects.toBeInstanceOf(TypeError);
  });
});

describe('storageError', () => {
  it('names the disk errors storage_unavailable and leaves the rest', () => {
    for (const code of ['ENOSPC', 'EDQUOT', 'EROFS', 'EACCES', 'EPERM', 'EIO', 'ENOTDIR']) {
      expect(isStorageUnavailable(systemError(code))).toBe(true);
      expect(storageError(systemError(code))).toMatchObject({ code: 'storage_unavailable', details: { reason: code } });
    }
    for (const err of [systemError('ECONNRESET'), new Error('x'), undefined, new AppError('upstream_failed', 'x')]) {
      expect(isStorageUnavailable(err)).toBe(false);
      expect(storageError(err)).toBe(err);
    }
  });
});
