import { Injectable } from '@nestjs/common';
import { AppError } from '../../../core/index.js';
import { SafeFetcher } from '../../../platform/outbound/index.js';
import { ReferenceVideoDownloader } from '../application/ports/reference-video-downloader.js';

const FIELD = 'reference_video_url';

/** The reference video through the SSRF-safe fetcher; what it serves is judged by its bytes afterwards. */
@Injectable()
export class SafeReferenceVideoDownloader extends ReferenceVideoDownloader {
  constructor(private readonly fetcher: SafeFetcher) {
    super();
  }

  async download(url: string, opts: { maxBytes: number; signal?: AbortSignal }): Promise<Buffer> {
    try {
      return (await this.fetcher.download(url, { maxBytes: opts.maxBytes, signal: opts.signal, field: FIELD })).bytes;
    } catch (err) {
      throw err instanceof AppError ? readable(err, opts.maxBytes) : err;
    }
  }
}

/** The job's error is all a client sees of a failed download: say which file and why. */
function readable(err: AppError, maxBytes: number): AppError {
  if (err.code === 'payload_too_large') {
    return new AppError(err.code, `The reference video is larger than ${Math.floor(maxBytes / (1024 * 1024))} MiB.`, { field: FIELD });
  }
  if (err.code === 'validation_failed' || err.code === 'unsupported_media_type') {
    return new AppError(err.code, `The reference video could not be downloaded: ${err.message}`, err.details);
  }
  return err;
}
