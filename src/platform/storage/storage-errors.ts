import { AppError } from '../../core/index.js';

/**
 * The errors of a disk that cannot take a write: full (ENOSPC, EDQUOT), read-only (EROFS), not
 * writable (EACCES, EPERM), failing (EIO), or a media directory that is not a directory (ENOTDIR).
 */
const UNAVAILABLE = new Set(['ENOSPC', 'EDQUOT', 'EROFS', 'EACCES', 'EPERM', 'EIO', 'ENOTDIR']);

/** Whether `err` says the media storage cannot take a write right now. */
export function isStorageUnavailable(err: unknown): boolean {
  if (err instanceof AppError) return err.code === 'storage_unavailable';
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && UNAVAILABLE.has(code);
}

/**
 * A failed storage write as the application reports it: `storage_unavailable` (503; a job's error)
 * for a disk that cannot take it, with the system's code in `details`; anything else unchanged.
 */
export function storageError(err: unknown): unknown {
  if (err instanceof AppError || !isStorageUnavailable(err)) return err;
  return unavailable((err as { code: string }).code);
}

/**
 * A failed write under the media root. There ENOENT is the disk too: the root is gone (an unmounted
 * disk), or a folder could not be made (a full disk: a recursive mkdir reports ENOSPC as ENOENT).
 */
export function storageWriteError(err: unknown): unknown {
  if ((err as { code?: unknown } | null)?.code === 'ENOENT') return unavailable('ENOENT');
  return storageError(err);
}

function unavailable(reason: string): AppError {
  return new AppError('storage_unavailable', 'Media storage is unavailable; please try again later.', { reason });
}
