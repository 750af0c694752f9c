import type { ServerResponse } from 'node:http';
import { GpuFakeServer, json, solidPng, type GpuFakeExchange } from './gpu-server-base.js';

/**
 * AUTOMATIC1111 / Forge's web UI API (`--api`), as far as the self-hosted adapter uses it:
 * `POST /sdapi/v1/txt2img` and `/sdapi/v1/img2img` (JSON in, base64 PNGs out, one generation at a
 * time in arrival order, as the web UI's queue lock runs them), `GET /internal/ping` (1.6+; 404 when
 * `options.ping` is false, as older builds answer) and `GET /sdapi/v1/options`. With credentials
 * (`user:password`, `--api-auth`) the `/sdapi` routes want HTTP Basic auth and answer 401 without
 * it; the ping route belongs to the UI app and is open, as on the real server. Images are solid
 * orange PNGs of the asked size.
 */
export class FakeA1111Server extends GpuFakeServer {
  /** Mutable. `ping`: whether `/internal/ping` exists. `malformed`: 200 answers that are not JSON, or not images. */
  readonly options: { ping: boolean; malformed: false | 'not_json' | 'not_images' } = { ping: true, malformed: false };
  /** The decoded `init_images[0]` of every img2img request, in order. */
  readonly initImages: Buffer[] = [];
  /** Every generation request's JSON body, in arrival order. */
  readonly payloads: Record<string, any>[] = [];

  constructor(credentials?: string) {
    super(credentials);
  }

  protected isHealthRoute(path: string): boolean {
    return path === '/internal/ping' || path === '/sdapi/v1/options';
  }

  protected isGenerationRoute(method: string, path: string): boolean {
    return method === 'POST' && (path === '/sdapi/v1/txt2img' || path === '/sdapi/v1/img2img');
  }

  protected authorized(header: string | undefined): boolean {
    return !this.credentials || header === `Basic ${Buffer.from(this.credentials).toString('base64')}`;
  }

  protected unauthorized(res: ServerResponse): void {
    json(res, 401, { detail: 'Incorrect username or password' }, { 'WWW-Authenticate': 'Basic' });
  }

  protected override needsAuth(path: string): boolean {
    return path.startsWith('/sdapi/');
  }

  protected async route(x: GpuFakeExchange): Promise<void> {
    const method = x.req.method ?? 'GET';
    if (method === 'GET' && x.path === '/internal/ping' && this.options.ping) return json(x.res, 200, {});
    if (method === 'GET' && x.path === '/sdapi/v1/options') return json(x.res, 200, { sd_model_checkpoint: 'sd_xl_base_1.0.safetensors [31e35c80fc]', samples_format: 'png' });
    if (this.isGenerationRoute(method, x.path)) return this.generate(x, x.path.endsWith('img2img'));
    json(x.res, 404, { detail: 'Not Found' });
  }

  private async generate(x: GpuFakeExchange, img2img: boolean): Promise<void> {
    const release = this.hold();
    try {
      const body = parseBody(x.raw, img2img);
      if (typeof body === 'string') return json(x.res, 422, { detail: [{ loc: ['body'], msg: body, type: 'value_error' }] });
      this.payloads.push(body);
      if (img2img) this.initImages.push(Buffer.from(stripDataUrl(body.init_images[0]), 'base64'));
      const images = await this.inTurn(x.gone, () => this.draw(body));
      if (images === null) return;
      this.answer(x.res, body, images);
    } finally {
      release();
    }
  }

  private async draw(body: Record<string, any>): Promise<string[]> {
    const width = roundTo8(body.width ?? 512);
    const height = roundTo8(body.height ?? 512);
    const png = await solidPng(width, height, [240, 140, 30]);
    const count = (body.batch_size ?? 1) * (body.n_iter ?? 1);
    return Array.from({ length: count }, () => png.toString('base64'));
  }

  private answer(res: ServerResponse, body: Record<string, any>, images: string[]): void {
    if (this.options.malformed === 'not_json') {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      return void res.end('<html>Internal Server Error</html>');
    }
    if (this.options.malformed === 'not_images') images = images.map(() => Buffer.from('not an image at all').toString('base64'));
    const seed = typeof body.seed === 'number' && body.seed >= 0 ? body.seed : 1234567;
    const info = { prompt: body.prompt, seed, all_seeds: images.map((_, i) => seed + i), width: body.width, height: body.height, sampler_name: body.sampler_name };
    json(res, 200, { images, parameters: body, info: JSON.stringify(info) });
  }
}

/** The request body, or why FastAPI's validation would refuse it. */
function parseBody(raw: Buffer, img2img: boolean): Record<string, any> | string {
  let body: any;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch {
    return 'body is not valid JSON';
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) return 'body must be an object';
  for (const key of ['width', 'height', 'batch_size', 'n_iter', 'seed', 'steps'] as const) {
    if (body[key] !== undefined && !Number.isInteger(body[key])) return `${key}: value is not a valid integer`;
  }
  if (img2img && (!Array.isArray(body.init_images) || typeof body.init_images[0] !== 'string')) return 'init_images: field required';
  return body;
}

function stripDataUrl(b64: string): string {
  const comma = b64.startsWith('data:') ? b64.indexOf(',') : -1;
  return comma >= 0 ? b64.slice(comma + 1) : b64;
}

/** A1111 draws sizes in multiples of 8, rounding down. */
function roundTo8(n: number): number {
  return Math.max(8, Math.floor(n / 8) * 8);
}
