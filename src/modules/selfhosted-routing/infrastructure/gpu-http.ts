import type { GeneratedMedia } from '../../generation/index.js';
import { sniffImageType } from '../../../platform/media/index.js';
import { hostOf, OutboundError, type HostResolver, type HttpRequestOptions } from '../../../platform/outbound/index.js';

/** Options shared by the self-hosted backends; the defaults suit production, tests shorten them. */
export interface GpuBackendOptions {
  /**
   * The longest any one call may take. Only a ceiling against a caller that never aborts: the
   * router's signal (its budget) is what ends a slow generation.
   */
  ceilingMs: number;
  /** ComfyUI: how often the history is polled while a prompt runs. */
  pollIntervalMs: number;
  /** Largest answer accepted: A1111 sends every image base64 in one JSON body. */
  maxBytes: number;
  /** How names are resolved at connect time; tests make one resolve where they want. */
  resolve?: HostResolver;
}

export const GPU_BACKEND_DEFAULTS: GpuBackendOptions = { ceilingMs: 10 * 60_000, pollIntervalMs: 250, maxBytes: 256 * 1024 * 1024 };

/**
 * Every GPU call re-vets its address when it connects (an endpoint's name may point elsewhere
 * since it was saved) under the same rules as saving, and never follows a redirect: a GPU server
 * that answers 307 to a metadata address must not make us fetch it.
 */
export function gpuGuard(options: GpuBackendOptions): NonNullable<HttpRequestOptions['guard']> {
  return { policy: 'operator', resolve: options.resolve, what: 'self-hosted GPU calls' };
}

/** Injection token for `Partial<GpuBackendOptions>`; optional, the defaults apply without it. */
export const GPU_BACKEND_OPTIONS = Symbol('GPU_BACKEND_OPTIONS');

/**
 * Image bytes a server answered as `GeneratedMedia`, typed by their leading bytes (never by what
 * the server claims); the size read from a PNG's header, else the one asked for.
 */
export function toGeneratedMedia(bytes: Buffer, asked: { width: number; height: number }, url: string): GeneratedMedia {
  const type = sniffImageType(bytes);
  if (!type) throw new OutboundError('bad_response', `${hostOf(url)} answered an image that is not PNG, JPEG or WebP.`);
  const size = type.mime === 'image/png' && bytes.length >= 24 ? { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) } : asked;
  return { bytes, contentType: type.mime, ...size };
}

export function badResponse(url: string, what: string): OutboundError {
  return new OutboundError('bad_response', `${hostOf(url)} answered ${what}.`);
}
