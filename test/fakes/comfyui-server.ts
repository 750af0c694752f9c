import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { GpuFakeServer, json, solidPng, type GpuFakeExchange } from './gpu-server-base.js';
import { parseMultipart } from './platforms/x.js';

/**
 * ComfyUI's HTTP API (`server.py`), as far as the self-hosted adapter uses it: `POST /prompt`
 * validates an API-format workflow (400 `{error, node_errors}` as ComfyUI answers) and queues it;
 * one prompt runs at a time in queue order; `GET /history/{id}` is `{}` until it finished; `GET
 * /view` serves its images; `POST /upload/image` stores a LoadImage input; `GET /queue` lists
 * the running and pending prompts, `POST /queue {delete}` and `POST /interrupt {prompt_id}` cancel
 * one; `GET /system_stats` is the health route. A queued or running prompt counts as held until
 * it finished or was cancelled. A client's own `prompt_id` is kept. With a token, every
 * route wants `Authorization: Bearer <token>` (the proxy in front of ComfyUI) and answers 401
 * without it. Images are solid teal PNGs of the workflow's size (512×512, batch 1 when it has none).
 */
export class FakeComfyUiServer extends GpuFakeServer {
  /**
   * Mutable. `executionError`: prompts end with an execution error in their history. `malformed`:
   * `POST /prompt` answers 200 with HTML, or `/view` serves bytes that are not an image.
   */
  readonly options: { executionError: boolean; malformed: false | 'prompt' | 'view' } = { executionError: false, malformed: false };
  /** Every accepted prompt, by id. */
  readonly prompts = new Map<string, FakeComfyPrompt>();
  /** Files by `type/subfolder/filename`: uploads (`input`) and drawn images (`output`). */
  readonly files = new Map<string, Buffer>();
  /** Prompts deleted from the queue or interrupted. */
  cancelled = 0;
  private readonly history = new Map<string, Record<string, unknown>>();
  private sequence = 0;

  constructor(token?: string) {
    super(token);
  }

  /** A restarted ComfyUI has forgotten its queue and history (its files stay on disk). */
  override async stop(): Promise<void> {
    this.forget();
    await super.stop();
  }

  /** What a restart between two polls looks like to a client: queue and history gone, the connection fine. */
  forget(): void {
    for (const p of this.prompts.values()) {
      if (p.status !== 'pending' && p.status !== 'running') continue;
      p.status = 'lost';
      p.cancel.abort();
    }
    this.history.clear();
  }

  uploaded(name: string, subfolder = ''): Buffer | undefined {
    return this.files.get(fileKey('input', subfolder, name));
  }

  protected isHealthRoute(path: string): boolean {
    return path === '/system_stats';
  }

  protected isGenerationRoute(method: string, path: string): boolean {
    return method === 'POST' && path === '/prompt';
  }

  protected authorized(header: string | undefined): boolean {
    return !this.credentials || header === `Bearer ${this.credentials}`;
  }

  protected unauthorized(res: ServerResponse): void {
    json(res, 401, { error: 'Unauthorized' }, { 'WWW-Authenticate': 'Bearer' });
  }

  protected async route(x: GpuFakeExchange): Promise<void> {
    const key = `${x.req.method ?? 'GET'} ${x.path}`;
    const history = /^\/history\/([^/]+)$/.exec(x.path);
    if (key === 'POST /prompt') return this.queuePrompt(x);
    if (x.req.method === 'GET' && history) return this.getHistory(x.res, decodeURIComponent(history[1]));
    if (key === 'GET /view') return this.view(x);
    if (key === 'POST /upload/image') return this.upload(x);
    if (key === 'GET /queue') return this.listQueue(x.res);
    if (key === 'POST /queue') return this.deleteQueued(x);
    if (key === 'POST /interrupt') return this.interrupt(x);
    if (key === 'GET /system_stats') return json(x.res, 200, SYSTEM_STATS);
    json(x.res, 404, { error: 'Not Found' });
  }

  private queuePrompt(x: GpuFakeExchange): void {
    const body = parseJson(x.raw);
    const workflow = body?.prompt;
    if (!workflow || typeof workflow !== 'object' || Array.isArray(workflow)) return json(x.res, 400, promptError('no_prompt', 'No prompt provided'));
    const refusal = this.validate(workflow);
    if (refusal) return json(x.res, 400, refusal);
    if (this.options.malformed === 'prompt') return void x.res.writeHead(200, { 'Content-Type': 'text/html' }).end('<html>502 Bad Gateway</html>');
    // ComfyUI keeps the client's own id when it sends one.
    const id = typeof body.prompt_id === 'string' && body.prompt_id !== '' ? body.prompt_id : randomUUID();
    const p: FakeComfyPrompt = { id, number: this.sequence++, clientId: body.client_id, workflow, status: 'pending', cancel: new AbortController() };
    this.prompts.set(p.id, p);
    json(x.res, 200, { prompt_id: p.id, number: p.number, node_errors: {} });
    void this.execute(p);
  }

  private async execute(p: FakeComfyPrompt): Promise<void> {
    const release = this.hold();
    try {
      const outputs = await this.inTurn(
        p.cancel.signal,
        () => this.run(p),
        () => (p.status = 'running'),
      );
      if (outputs === null || p.status === 'lost') return;
      p.status = this.options.executionError ? 'error' : 'success';
      this.history.set(p.id, this.historyEntry(p, this.options.executionError ? {} : outputs));
    } finally {
      release();
    }
  }

  /** Draws every SaveImage node's batch, stored as ComfyUI names its outputs. */
  private async run(p: FakeComfyPrompt): Promise<Record<string, { images: FakeComfyImage[] }>> {
    const { width, height, batch } = sizeOf(p.workflow);
    const png = await solidPng(width, height, [20, 160, 150]);
    const outputs: Record<string, { images: FakeComfyImage[] }> = {};
    for (const [nodeId, node] of Object.entries(p.workflow)) {
      if (node.class_type !== 'SaveImage') continue;
      const prefix = typeof node.inputs.filename_prefix === 'string' ? node.inputs.filename_prefix : 'ComfyUI';
      outputs[nodeId] = { images: [] };
      for (let i = 0; i < batch; i++) {
        const filename = `${prefix}_${String(this.files.size + 1).padStart(5, '0')}_.png`;
        this.files.set(fileKey('output', '', filename), png);
        outputs[nodeId].images.push({ filename, subfolder: '', type: 'output' });
      }
    }
    return outputs;
  }

  private historyEntry(p: FakeComfyPrompt, outputs: Record<string, unknown>): Record<string, unknown> {
    const started = ['execution_start', { prompt_id: p.id, timestamp: Date.now() }];
    const ended =
      p.status === 'success'
        ? ['execution_success', { prompt_id: p.id, timestamp: Date.now() }]
        : p.status === 'interrupted'
          ? ['execution_interrupted', { prompt_id: p.id, node_id: '3', node_type: 'KSampler', executed: [] }]
          : ['execution_error', { prompt_id: p.id, node_id: '3', node_type: 'KSampler', exception_message: 'CUDA out of memory (injected)', exception_type: 'torch.OutOfMemoryError', traceback: [] }];
    return {
      prompt: [p.number, p.id, p.workflow, { client_id: p.clientId }, Object.keys(outputs)],
      outputs,
      status: { status_str: p.status === 'success' ? 'success' : 'error', completed: p.status === 'success', messages: [started, ended] },
      meta: {},
    };
  }

  private getHistory(res: ServerResponse, id: string): void {
    const entry = this.history.get(id);
    json(res, 200, entry ? { [id]: entry } : {});
  }

  private view(x: GpuFakeExchange): void {
    const q = x.query;
    const bytes = this.files.get(fileKey(q.get('type') ?? 'output', q.get('subfolder') ?? '', q.get('filename') ?? ''));
    if (!bytes) return void x.res.writeHead(404).end();
    if (this.options.malformed === 'view') return void x.res.writeHead(200, { 'Content-Type': 'image/png' }).end('not an image at all');
    x.res.writeHead(200, { 'Content-Type': 'image/png', 'Content-Length': String(bytes.length) });
    x.res.end(bytes);
  }

  private upload(x: GpuFakeExchange): void {
    const parts = parseMultipart(x.raw, x.req.headers['content-type']);
    const image = parts?.find((p) => p.name === 'image' && p.filename);
    if (!parts || !image?.filename) return void x.res.writeHead(400).end();
    const field = (name: string) => parts.find((p) => p.name === name)?.data.toString('utf8');
    const type = field('type') || 'input';
    const subfolder = field('subfolder') ?? '';
    const overwrite = field('overwrite') === 'true' || field('overwrite') === '1';
    let name = image.filename;
    for (let i = 1; !overwrite && this.files.has(fileKey(type, subfolder, name)); i++) name = image.filename.replace(/(\.[^.]*)?$/, ` (${i})$1`);
    this.files.set(fileKey(type, subfolder, name), Buffer.from(image.data));
    json(x.res, 200, { name, subfolder, type });
  }

  /** `GET /queue`: `[number, prompt_id, prompt, extra_data, outputs]` per running and pending prompt. */
  private listQueue(res: ServerResponse): void {
    const item = (p: FakeComfyPrompt) => [p.number, p.id, p.workflow, { client_id: p.clientId }, []];
    const of = (status: FakeComfyPromptStatus) => [...this.prompts.values()].filter((p) => p.status === status).map(item);
    json(res, 200, { queue_running: of('running'), queue_pending: of('pending') });
  }

  /** `POST /queue {delete: [ids]}`: drops prompts still waiting; a running one is left alone, as in ComfyUI. */
  private deleteQueued(x: GpuFakeExchange): void {
    for (const id of asStrings(parseJson(x.raw)?.delete)) {
      const p = this.prompts.get(id);
      if (p?.status !== 'pending') continue;
      p.status = 'deleted';
      this.cancelled += 1;
      p.cancel.abort();
    }
    x.res.writeHead(200).end();
  }

  /** `POST /interrupt`: stops the running prompt (only when it is `prompt_id`, when given); it ends in history as interrupted. */
  private interrupt(x: GpuFakeExchange): void {
    const only = parseJson(x.raw)?.prompt_id;
    for (const p of this.prompts.values()) {
      if (p.status !== 'running' || (typeof only === 'string' && only !== p.id)) continue;
      p.status = 'interrupted';
      this.cancelled += 1;
      p.cancel.abort();
      this.history.set(p.id, this.historyEntry(p, {}));
    }
    x.res.writeHead(200).end();
  }

  /** What ComfyUI's `validate_prompt` would refuse in this workflow, as its 400 body; null when it runs. */
  private validate(workflow: Record<string, any>): Record<string, unknown> | null {
    for (const [id, node] of Object.entries(workflow)) {
      if (!node || typeof node.class_type !== 'string' || typeof node.inputs !== 'object') {
        return promptError('invalid_prompt', 'Cannot execute because a node is missing the class_type property.', `Node ID '#${id}'`);
      }
      for (const value of Object.values(node.inputs as Record<string, unknown>)) {
        if (Array.isArray(value) && value.length === 2 && typeof value[0] === 'string' && !(value[0] in workflow)) {
          return promptError('invalid_prompt', `Node '${value[0]}' not found. The workflow may be missing nodes.`);
        }
      }
    }
    const outputs = Object.keys(workflow).filter((id) => workflow[id].class_type === 'SaveImage');
    if (outputs.length === 0) return promptError('prompt_no_outputs', 'Prompt has no outputs');
    const nodeErrors: Record<string, unknown> = {};
    for (const [id, node] of Object.entries(workflow)) {
      const errors = this.inputErrors(node);
      if (errors.length > 0) nodeErrors[id] = { errors, dependent_outputs: outputs, class_type: node.class_type };
    }
    if (Object.keys(nodeErrors).length === 0) return null;
    return { ...promptError('prompt_outputs_failed_validation', 'Prompt outputs failed validation'), node_errors: nodeErrors };
  }

  private inputErrors(node: { class_type: string; inputs: Record<string, any> }): Array<Record<string, unknown>> {
    const errors: Array<Record<string, unknown>> = [];
    for (const name of INTEGER_INPUTS[node.class_type] ?? []) {
      const value = node.inputs[name];
      if (!Number.isInteger(value) && !Array.isArray(value)) {
        errors.push({ type: 'invalid_input_type', message: 'Failed to convert an input value to a INT value', details: `${name}, ${String(value)}`, extra_info: { input_name: name } });
      }
    }
    if (node.class_type === 'LoadImage') {
      const [subfolder, name] = splitImagePath(String(node.inputs.image));
      if (!this.files.has(fileKey('input', subfolder, name))) {
        errors.push({ type: 'custom_validation_failed', message: 'Invalid image file', details: `image - Invalid image file: ${String(node.inputs.image)}`, extra_info: {} });
      }
    }
    return errors;
  }
}

export type FakeComfyPromptStatus = 'pending' | 'running' | 'success' | 'error' | 'deleted' | 'interrupted' | 'lost';

export interface FakeComfyPrompt {
  id: string;
  number: number;
  clientId: unknown;
  /** The API-format workflow as received. */
  workflow: Record<string, { class_type: string; inputs: Record<string, any> }>;
  status: FakeComfyPromptStatus;
  cancel: AbortController;
}

interface FakeComfyImage {
  filename: string;
  subfolder: string;
  type: 'output';
}

const INTEGER_INPUTS: Record<string, string[]> = {
  EmptyLatentImage: ['width', 'height', 'batch_size'],
  KSampler: ['seed', 'steps'],
  ImageScale: ['width', 'height'],
  RepeatLatentBatch: ['amount'],
};

const SYSTEM_STATS = {
  system: { os: 'posix', ram_total: 67_108_864_000, ram_free: 50_000_000_000, comfyui_version: '0.3.40', python_version: '3.12.3', pytorch_version: '2.7.0+cu128', embedded_python: false, argv: ['main.py', '--listen'] },
  devices: [{ name: 'cuda:0 NVIDIA GeForce RTX 4090 : cudaMallocAsync', type: 'cuda', index: 0, vram_total: 25_386_352_640, vram_free: 23_000_000_000, torch_vram_total: 0, torch_vram_free: 0 }],
};

function promptError(type: string, message: string, details = ''): { error: Record<string, unknown>; node_errors: Record<string, unknown> } {
  return { error: { type, message, details, extra_info: {} }, node_errors: {} };
}

function parseJson(raw: Buffer): any {
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    return undefined;
  }
}

function asStrings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

function fileKey(type: string, subfolder: string, filename: string): string {
  return `${type}/${subfolder}/${filename}`;
}

/** LoadImage's `image` is `name` or `subfolder/name`. */
function splitImagePath(image: string): [string, string] {
  const slash = image.lastIndexOf('/');
  return slash < 0 ? ['', image] : [image.slice(0, slash), image.slice(slash + 1)];
}

/** The drawn size and batch: the EmptyLatentImage's, else an ImageScale's and a RepeatLatentBatch's, else 512×512 × 1. */
function sizeOf(workflow: FakeComfyPrompt['workflow']): { width: number; height: number; batch: number } {
  const nodes = Object.values(workflow);
  const latent = nodes.find((n) => n.class_type === 'EmptyLatentImage')?.inputs;
  const scale = nodes.find((n) => n.class_type === 'ImageScale')?.inputs;
  const repeat = nodes.find((n) => n.class_type === 'RepeatLatentBatch')?.inputs;
  const sized = latent ?? scale;
  const int = (v: unknown, fallback: number) => (Number.isInteger(v) && (v as number) > 0 ? (v as number) : fallback);
  return { width: int(sized?.width, 512), height: int(sized?.height, 512), batch: int(latent?.batch_size ?? repeat?.amount, 1) };
}
