import { randomInt, randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import type { GeneratedMedia } from '../../generation/index.js';
import { abortableSleep, hostOf, httpJson, httpRequest, isOutboundError, OutboundError, type HttpRequestOptions } from '../../../platform/outbound/index.js';
import { sniffImageType } from '../../../platform/media/index.js';
import { GpuBackend, type GpuImageRequest, type GpuTarget } from '../application/ports/gpu-backend.js';
import { buildWorkflow, DEFAULT_STRENGTH, usesImage, type WorkflowInputs } from './comfyui-workflow.js';
import { badResponse, GPU_BACKEND_DEFAULTS, gpuGuard, GPU_BACKEND_OPTIONS, toGeneratedMedia, type GpuBackendOptions } from './gpu-http.js';

interface OutputImage {
  filename: string;
  subfolder: string;
  type: string;
}

interface HistoryEntry {
  outputs?: Record<string, { images?: OutputImage[] }>;
  status?: { status_str?: string; completed?: boolean; messages?: unknown[] };
}

/** Polls between two reads of the queue (about 2 s at the default interval). */
const QUEUE_CHECK_EVERY = 8;
/** How long the best-effort cancellation of an abandoned prompt may take. */
const CANCEL_TIMEOUT_MS = 2_000;

/**
 * ComfyUI over its HTTP API: the workflow is queued with `POST /prompt`, its history polled until
 * it finished, its images read with `GET /view`; image-to-image uploads the reference first. A
 * bearer token goes to the proxy in front (ComfyUI itself has no auth).
 */
@Injectable()
export class ComfyUiBackend extends GpuBackend {
  readonly kind = 'comfyui' as const;
  private readonly options: GpuBackendOptions;
  private readonly logger = new Logger(ComfyUiBackend.name);

  constructor(@Optional() @Inject(GPU_BACKEND_OPTIONS) options?: Partial<GpuBackendOptions> | null) {
    super();
    this.options = { ...GPU_BACKEND_DEFAULTS, ...options };
  }

  async generate(target: GpuTarget, req: GpuImageRequest, signal: AbortSignal): Promise<GeneratedMedia[]> {
    if (req.initImage && target.workflow && !usesImage(target.workflow)) {
      // The endpoint's configuration cannot serve this request: a bad request, not a sick server.
      throw new OutboundError('http', `The workflow of ${hostOf(target.url)} has no {{image}} to draw image-to-image from.`, { status: 400 });
    }
    const deadline = AbortSignal.any([signal, AbortSignal.timeout(this.options.ceilingMs)]);
    try {
      return await this.run(target, req, deadline);
    } catch (err) {
      // The outbound layer calls every abort of the signal it was given a cancellation; the ceiling's is a timeout.
      if (isOutboundError(err) && err.kind === 'aborted' && !signal.aborted) throw new OutboundError('timeout', 'The prompt took longer than the ceiling.', { cause: err });
      throw err;
    }
  }

  private async run(target: GpuTarget, req: GpuImageRequest, signal: AbortSignal): Promise<GeneratedMedia[]> {
    const image = req.initImage ? await this.upload(target, req.initImage, signal) : undefined;
    const workflow = buildWorkflow(target.workflow, inputsOf(req, image));
    // Our own id (recent ComfyUI keeps a `prompt_id` it is given), so a prompt queued just as the
    // signal aborts can still be cancelled; older servers answer theirs, used once known.
    let promptId: string = randomUUID();
    try {
      promptId = await this.queue(target, workflow, promptId, signal);
      const entry = await this.waitForHistory(target, promptId, signal);
      const images = outputImages(entry, `${target.url}/history/${promptId}`).slice(0, req.count);
      return await Promise.all(images.map((i) => this.download(target, i, req, signal)));
    } catch (err) {
      if (signal.aborted) this.cancel(target, promptId);
      throw err;
    }
  }

  async probe(target: GpuTarget, signal: AbortSignal): Promise<void> {
    const url = `${target.url}/system_stats`;
    const { data } = await httpJson<{ devices?: unknown }>(url, this.call(target, signal));
    if (!data || !Array.isArray(data.devices)) throw badResponse(url, 'system stats without devices');
  }

  private async upload(target: GpuTarget, init: NonNullable<GpuImageRequest['initImage']>, signal: AbortSignal): Promise<string> {
    const url = `${target.url}/upload/image`;
    const ext = sniffImageType(init.bytes)?.ext ?? 'png';
    const form = multipart([
      { name: 'image', filename: `persona-${randomUUID()}.${ext}`, contentType: init.contentType, data: init.bytes },
      { name: 'overwrite', data: Buffer.from('true') },
    ]);
    const call = this.call(target, signal);
    const res = await httpRequest(url, { ...call, method: 'POST', headers: { ...call.headers, 'Content-Type': form.contentType }, body: form.body });
    const data = parseObject(res.body, url) as { name?: unknown; subfolder?: unknown };
    if (typeof data.name !== 'string' || data.name === '') throw badResponse(url, 'an upload without a name');
    return typeof data.subfolder === 'string' && data.subfolder !== '' ? `${data.subfolder}/${data.name}` : data.name;
  }

  /** A refused workflow is ComfyUI's 400 `{error, node_errors}`, which the outbound layer already types as http 400. */
  private async queue(target: GpuTarget, workflow: Record<string, unknown>, promptId: string, signal: AbortSignal): Promise<string> {
    const url = `${target.url}/prompt`;
    const json = { prompt: workflow, prompt_id: promptId, client_id: randomUUID() };
    const { data } = await httpJson<{ prompt_id?: unknown }>(url, { ...this.call(target, signal), method: 'POST', json });
    if (!data || typeof data.prompt_id !== 'string' || data.prompt_id === '') throw badResponse(url, 'a queued prompt without an id');
    return data.prompt_id;
  }

  /**
   * ComfyUI writes a prompt's history once it ended; until then the answer is `{}`. A server that
   * restarted meanwhile forgot the prompt and would answer `{}` for ever, so every few polls the
   * queue is read: a prompt neither queued nor (read after) in the history was lost.
   */
  private async waitForHistory(target: GpuTarget, promptId: string, signal: AbortSignal): Promise<HistoryEntry> {
    for (let poll = 1; ; poll++) {
      const queued = poll % QUEUE_CHECK_EVERY === 0 ? await this.isQueued(target, promptId, signal) : true;
      const entry = await this.historyOf(target, promptId, signal);
      if (entry) return entry;
      if (!queued) throw badResponse(target.url, `no trace of prompt ${promptId}: the server lost it (restarted?)`);
      try {
        await abortableSleep(this.options.pollIntervalMs, signal);
      } catch (err) {
        throw new OutboundError('aborted', 'The request was cancelled.', { cause: err });
      }
    }
  }

  /** The prompt's finished history entry; undefined while it has none. */
  private async historyOf(target: GpuTarget, promptId: string, signal: AbortSignal): Promise<HistoryEntry | undefined> {
    const url = `${target.url}/history/${encodeURIComponent(promptId)}`;
    const { data } = await httpJson<Record<string, HistoryEntry>>(url, this.call(target, signal));
    if (!data || typeof data !== 'object') throw badResponse(url, 'a history that is not an object');
    const entry = data[promptId];
    if (entry?.status?.status_str === 'error') throw new OutboundError('bad_response', `${hostOf(url)} failed the prompt: ${executionError(entry)}.`);
    return entry && entry.status?.completed !== false ? entry : undefined;
  }

  /** Whether the prompt is running or pending; `GET /queue` lists both as `[number, prompt_id, ...]`. */
  private async isQueued(target: GpuTarget, promptId: string, signal: AbortSignal): Promise<{ running: boolean } | null> {
    const url = `${target.url}/queue`;
    const { data } = await httpJson<{ queue_running?: unknown; queue_pending?: unknown }>(url, this.call(target, signal));
    const has = (list: unknown) => Array.isArray(list) && list.some((item) => Array.isArray(item) && item[1] === promptId);
    if (has(data?.queue_running)) return { running: true };
    return has(data?.queue_pending) ? { running: false } : null;
  }

  private async download(target: GpuTarget, image: OutputImage, req: GpuImageRequest, signal: AbortSignal): Promise<GeneratedMedia> {
    const query = new URLSearchParams({ filename: image.filename, subfolder: image.subfolder, type: image.type });
    const url = `${target.url}/view?${query.toString()}`;
    const res = await httpRequest(url, this.call(target, signal));
    return toGeneratedMedia(res.body, req, url);
  }

  /**
   * An abandoned prompt would still occupy the GPU: take it off the queue, or interrupt it when it
   * already runs. The queue is read first because older servers ignore `/interrupt`'s `prompt_id`
   * and would stop another client's prompt. Best effort, never awaited.
   */
  private cancel(target: GpuTarget, promptId: string): void {
    const signal = AbortSignal.timeout(CANCEL_TIMEOUT_MS);
    const call = this.call(target, signal);
    const headers = { ...call.headers, 'Content-Type': 'application/json' };
    const post = (path: string, json: unknown) => httpRequest(`${target.url}${path}`, { ...call, method: 'POST', headers, body: JSON.stringify(json) });
    const cancelled = async () => {
      const queued = await this.isQueued(target, promptId, signal);
      await (queued?.running ? post('/interrupt', { prompt_id: promptId }) : post('/queue', { delete: [promptId] }));
    };
    cancelled().catch((err: unknown) => {
      this.logger.warn(`Could not cancel prompt ${promptId} on ${hostOf(target.url)}: ${(err as Error).message}`);
    });
  }

  private call(target: GpuTarget, signal: AbortSignal): HttpRequestOptions & { headers: Record<string, string> } {
    const headers: Record<string, string> = target.apiKey ? { Authorization: `Bearer ${target.apiKey}` } : {};
    return { headers, signal, retries: 0, timeoutMs: this.options.ceilingMs, maxBytes: this.options.maxBytes, guard: gpuGuard(this.options) };
  }
}

function inputsOf(req: GpuImageRequest, image: string | undefined): WorkflowInputs {
  return {
    prompt: req.prompt,
    negativePrompt: req.negativePrompt ?? '',
    width: req.width,
    height: req.height,
    // ComfyUI has no "random" seed value: the caller draws one.
    seed: req.seed ?? randomInt(0, 2 ** 32),
    count: req.count,
    image,
    strength: image === undefined ? 1 : (req.strength ?? DEFAULT_STRENGTH),
  };
}

function outputImages(entry: HistoryEntry, url: string): OutputImage[] {
  const images = Object.values(entry.outputs ?? {}).flatMap((o) => (Array.isArray(o?.images) ? o.images : []));
  // Preview nodes write `temp` images; only saved ones are the result.
  const saved = images.filter((i) => i && typeof i.filename === 'string' && i.type === 'output').map((i) => ({ ...i, subfolder: typeof i.subfolder === 'string' ? i.subfolder : '' }));
  if (saved.length === 0) throw badResponse(url, 'a finished prompt without saved images');
  return saved;
}

function executionError(entry: HistoryEntry): string {
  for (const m of entry.status?.messages ?? []) {
    if (!Array.isArray(m) || (m[0] !== 'execution_error' && m[0] !== 'execution_interrupted')) continue;
    const data = m[1] as { node_type?: string; exception_message?: string } | undefined;
    return m[0] === 'execution_interrupted' ? 'interrupted' : `${data?.node_type ?? 'a node'}: ${data?.exception_message ?? 'error'}`;
  }
  return 'execution error';
}

function parseObject(body: Buffer, url: string): Record<string, unknown> {
  let data: unknown;
  try {
    data = JSON.parse(body.toString('utf8'));
  } catch {
    throw badResponse(url, 'something that is not JSON');
  }
  if (!data || typeof data !== 'object') throw badResponse(url, 'JSON that is not an object');
  return data as Record<string, unknown>;
}

interface FormPart {
  name: string;
  filename?: string;
  contentType?: string;
  data: Buffer;
}

function multipart(parts: FormPart[]): { contentType: string; body: Buffer } {
  const boundary = `----persona${randomUUID().replace(/-/g, '')}`;
  const chunks: Buffer[] = [];
  for (const p of parts) {
    const disposition = `form-data; name="${p.name}"${p.filename ? `; filename="${p.filename}"` : ''}`;
    const type = p.contentType ? `\r\nContent-Type: ${p.contentType}` : '';
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}${type}\r\n\r\n`), p.data, Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { contentType: `multipart/form-data; boundary=${boundary}`, body: Buffer.concat(chunks) };
}
