import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../config/index.js';
import { AppError } from '../../core/index.js';
import { isOutboundError, type OutboundError } from './outbound-error.js';
import { safeDownload, type DownloadedFile, type HostResolver } from './safe-download.js';

export interface FetchUserUrlOptions {
  /** Defaults to the provider download cap of the configuration. */
  maxBytes?: number;
  allowedContentTypes?: string[];
  timeoutMs?: number;
  signal?: AbortSignal;
  /** The request field the URL came from, named in validation errors. */
  field?: string;
}

/**
 * Downloads URLs that users give us (reference videos, listing previews) with the SSRF rules
 * of `safeDownload` and the configured allow-list, and answers failures as AppErrors a
 * controller or job can pass on unchanged.
 */
@Injectable()
export class SafeFetcher {
  /** Tests replace it to make names resolve where they want. */
  resolver?: HostResolver;

  constructor(private readonly config: AppConfig) {}

  async download(url: string, opts: FetchUserUrlOptions = {}): Promise<DownloadedFile> {
    try {
      return await safeDownload(url, {
        maxBytes: opts.maxBytes ?? this.config.providers.maxDownloadBytes,
        timeoutMs: opts.timeoutMs ?? this.config.providers.timeoutMs,
        allowedContentTypes: opts.allowedContentTypes,
        allowHosts: this.config.outboundAllowHosts,
        signal: opts.signal,
        resolve: this.resolver,
      });
    } catch (err) {
      throw isOutboundError(err) ? downloadFailure(err, opts.field ?? 'url') : err;
    }
  }
}

/**
 * What a failed user-URL download means to the caller: a URL we will not fetch is their input's
 * fault (400), a file too big or of the wrong type is 413/415, and the rest is the far side's.
 */
export function downloadFailure(err: OutboundError, field: string): AppError {
  switch (err.kind) {
    case 'invalid_url':
    case 'blocked':
    case 'too_many_redirects':
      return new AppError('validation_failed', err.message, [{ field, message: err.message }]);
    case 'too_large':
      return new AppError('payload_too_large', err.message, { field });
    case 'unsupported_type':
      return new AppError('unsupported_media_type', err.message, { field });
    default:
      return new AppError('upstream_failed', `The file at ${field} could not be downloaded: ${err.message}`, {
        provider: 'download',
        reason: err.kind,
        ...(err.status !== undefined ? { status: err.status } : {}),
      });
  }
}
