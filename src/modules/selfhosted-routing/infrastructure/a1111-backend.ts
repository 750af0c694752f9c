import { Inject, Injectable, Optional } from '@nestjs/common';
import type { GeneratedMedia } from '../../generation/index.js';
import { httpJson, httpRequest, isOutboundError } from '../../../platform/outbound/index.js';
import { GpuBackend, type GpuImageRequest, type GpuTarget } from '../application/ports/gpu-backend.js';
import { badResponse, GPU_BACKEND_DEFAULTS, gpuGuard, GPU_BACKEND_OPTIONS, toGeneratedMedia, type GpuBackendOptions } from './gpu-http.js';

/** Sampling the router's request does not carry; sane SD/SDXL values any checkpoint copes with. */
const SAMPLING = { steps: 25, cfg_scale: 7, sampler_name: 'DPM++ 2M' } as const;
const DEFAULT_STRENGTH = 0.75;

interface A1111Answer {
  images?: unknown;
}

/**
 * AUTOMATIC1111 / Forge over their web UI API (`--api`): `POST /sdapi/v1/txt2img` or `img2img`,
 * base64 images in and out, HTTP Basic auth from `--api-auth user:password`.
 */
@Injectable()
export class A1111Backend extends GpuBackend {
  readonly kind = 'a1111' as const;
  private readonly options: GpuBackendOptions;

  constructor(@Optional() @Inject(GPU_BACKEND_OPTIONS) options?: Partial<GpuBackendOptions> | null) {
    super();
    this.options = { ...GPU_BACKEND_DEFAULTS, ...options };
  }

  async generate(target: GpuTarget, req: GpuImageRequest, signal: AbortSignal): Promise<GeneratedMedia[]> {
    const img2img = req.initImage !== undefined;
    const url = `${target.url}/sdapi/v1/${img2img ? 'img2img' : 'txt2img'}`;
    const { data } = await httpJson<A1111Answer>(url, { ...this.call(target, signal), method: 'POST', json: payload(req) });
    const images = data && Array.isArray(data.images) ? data.images : null;
    if (!images || images.length === 0 || !images.every((i) => typeof i === 'string')) throw badResponse(url, 'no images');
    // Extensions (ControlNet and the like) append their maps after the drawn images.
    return images.slice(0, req.count).map((b64) => toGeneratedMedia(decodeBase64(b64, url), req, url));
  }

  /** `/internal/ping` (A1111 1.6+, Forge) costs the server nothing; older builds lack it, so their options route answers instead. */
  async probe(target: GpuTarget, signal: AbortSignal): Promise<void> {
    try {
      await httpRequest(`${target.url}/internal/ping`, this.call(target, signal));
    } catch (err) {
      if (!isOutboundError(err) || err.kind !== 'http' || err.status !== 404) throw err;
      await httpRequest(`${target.url}/sdapi/v1/options`, this.call(target, signal));
    }
  }

  private call(target: GpuTarget, signal: AbortSignal) {
    const headers: Record<string, string> = target.apiKey ? { Authorization: `Basic ${Buffer.from(target.apiKey, 'utf8').toString('base64')}` } : {};
    return { headers, signal, retries: 0, timeoutMs: this.options.ceilingMs, maxBytes: this.options.maxBytes, guard: gpuGuard(this.options) };
  }
}

function payload(req: GpuImageRequest): Record<string, unknown> {
  const body: Record<string, unknown> = {
    prompt: req.prompt,
    negative_prompt: req.negativePrompt ?? '',
    width: req.width,
    height: req.height,
    batch_size: req.count,
    n_iter: 1,
    seed: req.seed ?? -1,
    ...SAMPLING,
    // Not saving keeps the server's disk clean and stops it from prepending a grid to the images.
    save_images: false,
    send_images: true,
  };
  if (req.initImage) {
    body.init_images = [req.initImage.bytes.toString('base64')];
    body.denoising_strength = req.strength ?? DEFAULT_STRENGTH;
    // Crop and resize: the answer has the asked size whatever the reference's aspect.
    body.resize_mode = 1;
  }
  return body;
}

function decodeBase64(b64: string, url: string): Buffer {
  const data = b64.startsWith('data:') ? b64.slice(b64.indexOf(',') + 1) : b64;
  if (!/^[A-Za-z0-9+/\r\n]*={0,2}$/.test(data)) throw badResponse(url, 'an image that is not base64');
  return Buffer.from(data, 'base64');
}
