import { randomBytes } from 'node:crypto';
import { Logger } from '@nestjs/common';
import type { LoraBaseModel } from '../../../../config/index.js';
import { AppError } from '../../../../core/index.js';
import {
  abortableSleep,
  httpJson,
  httpRequest,
  isOutboundError,
  parseJson,
  RETRY_DEFAULTS,
  retryDelay,
  type RetryOptions,
} from '../../../../platform/outbound/index.js';
import { fromOutbound, upstreamFailed } from '../../../generation/index.js';
import { LoraTrainer, type TrainedWeights, type TrainingRequest, type TrainingState } from '../../application/ports/lora-trainer.js';
import { trainingArchive } from './training-archive.js';

export interface ReplicateTrainerOptions {
  baseUrl: string;
  token?: string;
  /** Budget of each HTTP exchange, the training set's upload included. */
  timeoutMs: number;
  /** Largest API answer read: a training object carries its whole log. Default 16 MiB. */
  maxDownloadBytes?: number;
  /** Per base model: `owner/name` (its latest version, resolved once) or `owner/name:version`. */
  trainers: Readonly<Record<LoraBaseModel, string>>;
  /** Owner of the per-workspace destination models; undefined: the token's own account. */
  destinationOwner?: string;
  /** Where Replicate posts training events; null: none are asked for (polling alone). */
  webhookUrl: string | null;
  retry?: RetryOptions;
}

interface TrainerRef {
  owner: string;
  name: string;
  version: string;
}

const DEFAULT_ANSWER_LIMIT = 16 * 1024 * 1024;
const TRAINING_ID = /^[A-Za-z0-9_-]{1,128}$/;
const MODEL_REF = /^([A-Za-z0-9][A-Za-z0-9_.-]*)\/([A-Za-z0-9][A-Za-z0-9_.-]*)$/;
const TRAINER_REF = /^([A-Za-z0-9][A-Za-z0-9_.-]*)\/([A-Za-z0-9][A-Za-z0-9_.-]*)(?::([A-Za-z0-9]+))?$/;
const FULL_VERSION = /^[A-Za-z0-9][A-Za-z0-9_.-]*\/[A-Za-z0-9][A-Za-z0-9_.-]*:[A-Za-z0-9]+$/;
const BARE_VERSION = /^[A-Za-z0-9]+$/;
const ERROR_TEXT_LIMIT = 1000;

/**
 * Trains on Replicate's trainings API (docs/design/lora-replicate-protocol.md): each workspace's
 * trainings push versions to one private destination model, the images go up as a captioned ZIP
 * through the Files API, and the trainer runs pinned to one version.
 */
export class ReplicateLoraTrainer extends LoraTrainer {
  readonly provider = 'replicate' as const;
  private readonly logger = new Logger('ReplicateLoraTrainer');
  // Settled lookups are kept for the process' life; a failed one is dropped so the next call retries.
  private readonly lookups = new Map<string, Promise<string>>();

  constructor(private readonly opts: ReplicateTrainerOptions) {
    super();
  }

  async start(req: TrainingRequest, signal?: AbortSignal): Promise<{ providerTrainingId: string }> {
    this.requireToken();
    const [destination, trainer] = await Promise.all([this.destination(req.workspaceId, signal), this.trainer(req.baseModel, signal)]);
    const inputImages = await this.uploadTrainingSet(req, signal);
    const webhook = this.opts.webhookUrl ? { webhook: this.opts.webhookUrl, webhook_events_filter: ['start', 'logs', 'completed'] } : {};
    const providerTrainingId = await this.createTraining(trainer, { destination, input: trainingInput(req, inputImages), ...webhook }, signal);
    this.logger.log(`Training ${providerTrainingId} started for ${req.loraId} on ${trainer.owner}/${trainer.name} into ${destination}`);
    return { providerTrainingId };
  }

  async status(providerTrainingId: string, signal?: AbortSignal): Promise<TrainingState | null> {
    this.requireToken();
    const data = await this.getOrNull(`/v1/trainings/${encodeURIComponent(providerTrainingId)}`, 'training status request', signal);
    if (data === null) return null;
    const training = parseTraining(data);
    if (training.id !== providerTrainingId) throw upstreamFailed('replicate', 'bad_response', `Replicate answered training ${providerTrainingId} with another training.`);
    return training.state;
  }

  async cancel(providerTrainingId: string): Promise<void> {
    try {
      this.requireToken();
      await httpRequest(`${this.opts.baseUrl}/v1/trainings/${encodeURIComponent(providerTrainingId)}/cancel`, {
        method: 'POST',
        headers: this.auth(),
        timeoutMs: Math.min(10_000, this.opts.timeoutMs),
        retries: 1,
        sleep: this.opts.retry?.sleep,
      });
    } catch (err) {
      this.logger.warn(`Could not cancel training ${providerTrainingId}: ${(err as Error).message}`);
    }
  }

  /** `<owner>/persona-<workspace>`, created private on first use. */
  private async destination(workspaceId: string, signal?: AbortSignal): Promise<string> {
    const owner = this.opts.destinationOwner ?? (await this.lookup('account', () => this.accountName(signal)));
    const name = destinationName(workspaceId);
    return this.lookup(`destination:${owner}/${name}`, () => this.ensureModel(owner, name, signal));
  }

  private async accountName(signal?: AbortSignal): Promise<string> {
    const account = await this.call('/v1/account', 'account lookup', { signal });
    const username = (account as { username?: unknown } | null)?.username;
    if (typeof username !== 'string' || !/^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(username)) {
      throw upstreamFailed('replicate', 'bad_response', 'Replicate answered the account lookup without a username.');
    }
    return username;
  }

  private async ensureModel(owner: string, name: string, signal?: AbortSignal): Promise<string> {
    const ref = `${owner}/${name}`;
    if (await this.getModel(owner, name, signal)) return ref;
    const json = { owner, name, visibility: 'private', hardware: 'cpu', description: 'Persona Studio character LoRAs for one workspace.' };
    try {
      await this.call('/v1/models', 'destination model creation', { method: 'POST', json, signal, mapErrors: false });
      this.logger.log(`Created the destination model ${ref}`);
    } catch (err) {
      // Another process created it between our look-up and our create: Replicate answers 409 or 422.
      const raced = isStatus(err, 409) || isStatus(err, 422);
      if (!raced || !(await this.getModel(owner, name, signal))) throw fromOutbound('replicate', err, 'destination model creation');
    }
    return ref;
  }

  private async getModel(owner: string, name: string, signal?: AbortSignal): Promise<Record<string, unknown> | null> {
    const data = await this.getOrNull(`/v1/models/${encodeURIComponent(owner)}/${encodeURIComponent(name)}`, 'model lookup', signal);
    if (data !== null && !isRecord(data)) throw upstreamFailed('replicate', 'bad_response', `Replicate answered the look-up of ${owner}/${name} with something that is not a model.`);
    return data;
  }

  /** The trainer pinned to a version: the configured one, else the model's latest, resolved once. */
  private async trainer(baseModel: LoraBaseModel, signal?: AbortSignal): Promise<TrainerRef> {
    const configured = this.opts.trainers[baseModel];
    const m = TRAINER_REF.exec(configured ?? '');
    if (!m) throw upstreamFailed('replicate', 'not_configured', `The Replicate trainer for ${baseModel} ("${configured}") is not owner/name[:version].`);
    const [, owner, name, pinned] = m;
    const version = pinned ?? (await this.lookup(`trainer:${owner}/${name}`, () => this.latestVersion(owner, name, signal)));
    return { owner, name, version };
  }

  private async latestVersion(owner: string, name: string, signal?: AbortSignal): Promise<string> {
    const model = await this.getModel(owner, name, signal);
    if (!model) throw upstreamFailed('replicate', 'not_configured', `The Replicate trainer ${owner}/${name} does not exist.`);
    const id = (model.latest_version as { id?: unknown } | null | undefined)?.id;
    if (typeof id !== 'string' || !BARE_VERSION.test(id)) throw upstreamFailed('replicate', 'bad_response', `Replicate answered ${owner}/${name} without a latest version.`);
    return id;
  }

  /** The ZIP through the Files API; its metadata tags the upload with our ids for support look-ups. */
  private async uploadTrainingSet(req: TrainingRequest, signal?: AbortSignal): Promise<string> {
    const boundary = `----persona-lora-${randomBytes(12).toString('hex')}`;
    const metadata = JSON.stringify({ lora_id: req.loraId, workspace_id: req.workspaceId, character_id: req.characterId });
    const body = Buffer.concat([
      formPart(boundary, 'content', 'application/zip', trainingArchive(req.images, req.baseModel), `${req.loraId}.zip`),
      formPart(boundary, 'metadata', 'application/json', Buffer.from(metadata, 'utf8')),
      Buffer.from(`--${boundary}--\r\n`),
    ]);
    try {
      const res = await httpRequest(`${this.opts.baseUrl}/v1/files`, {
        ...this.opts.retry,
        method: 'POST',
        headers: { ...this.auth(), 'Content-Type': `multipart/form-data; boundary=${boundary}` },
        body,
        timeoutMs: this.opts.timeoutMs,
        maxBytes: this.answerLimit(),
        signal,
      });
      return uploadedUrl(parseJson(res.body));
    } catch (err) {
      throw fromOutbound('replicate', err, 'training set upload');
    }
  }

  /**
   * Only a 429 is retried: it proves nothing was created, while a retried 5xx or lost answer
   * could start a second paid training.
   */
  private async createTraining(trainer: TrainerRef, body: Record<string, unknown>, signal?: AbortSignal): Promise<string> {
    const path = `/v1/models/${encodeURIComponent(trainer.owner)}/${encodeURIComponent(trainer.name)}/versions/${encodeURIComponent(trainer.version)}/trainings`;
    const retry = this.opts.retry ?? {};
    for (let attempt = 1; ; attempt++) {
      try {
        return parseTraining(await this.call(path, 'training creation', { method: 'POST', json: body, retries: 0, signal, mapErrors: false })).id;
      } catch (err) {
        if (!isStatus(err, 429) || attempt > (retry.retries ?? RETRY_DEFAULTS.retries)) throw fromOutbound('replicate', err, 'training creation');
        const delay = retryDelay(attempt, retry, isOutboundError(err) ? err.retryAfterMs : undefined);
        await (retry.sleep ?? abortableSleep)(delay, signal).catch(() => {
          throw upstreamFailed('replicate', 'aborted', 'The training creation was cancelled.');
        });
      }
    }
  }

  private async getOrNull(path: string, what: string, signal?: AbortSignal): Promise<unknown> {
    try {
      return await this.call(path, what, { signal, mapErrors: false });
    } catch (err) {
      if (isStatus(err, 404)) return null;
      throw fromOutbound('replicate', err, what);
    }
  }

  private async call(path: string, what: string, init: { method?: string; json?: unknown; retries?: number; signal?: AbortSignal; mapErrors?: boolean }): Promise<unknown> {
    try {
      const res = await httpJson(`${this.opts.baseUrl}${path}`, {
        ...this.opts.retry,
        ...(init.retries !== undefined ? { retries: init.retries } : {}),
        method: init.method ?? 'GET',
        json: init.json,
        headers: this.auth(),
        timeoutMs: this.opts.timeoutMs,
        maxBytes: this.answerLimit(),
        signal: init.signal,
      });
      return res.data;
    } catch (err) {
      throw init.mapErrors === false ? err : fromOutbound('replicate', err, what);
    }
  }

  private lookup(key: string, load: () => Promise<string>): Promise<string> {
    const cached = this.lookups.get(key);
    if (cached) return cached;
    const pending = load();
    this.lookups.set(key, pending);
    pending.catch(() => {
      if (this.lookups.get(key) === pending) this.lookups.delete(key);
    });
    return pending;
  }

  private requireToken(): void {
    if (!this.opts.token) throw upstreamFailed('replicate', 'not_configured', 'Replicate has no API token configured.');
  }

  private auth(): Record<string, string> {
    return { Authorization: `Bearer ${this.opts.token}` };
  }

  private answerLimit(): number {
    return this.opts.maxDownloadBytes ?? DEFAULT_ANSWER_LIMIT;
  }
}

/** Replicate model names are lower case; a workspace id keeps only the characters they allow. */
export function destinationName(workspaceId: string): string {
  return `persona-${workspaceId.toLowerCase().replace(/[^a-z0-9._-]/g, '-')}`;
}

const INPUTS: Readonly<Record<LoraBaseModel, (req: TrainingRequest, images: string) => Record<string, unknown>>> = {
  // Every image has a caption file, so autocaption would only cost time (flux-fine-tuner skips it anyway).
  'flux-dev': (req, images) => ({ input_images: images, trigger_word: req.triggerWord, steps: req.steps, lora_rank: req.rank, autocaption: false }),
  sdxl: (req, images) => ({
    input_images: images,
    token_string: req.triggerWord,
    caption_prefix: `a photo of ${req.triggerWord}, `,
    max_train_steps: req.steps,
    lora_rank: req.rank,
    is_lora: true,
  }),
};

/** The trainer's input for one base model (protocol notes §2). */
export function trainingInput(req: TrainingRequest, inputImages: string): Record<string, unknown> {
  return INPUTS[req.baseModel](req, inputImages);
}

/**
 * Checks a training object (an API answer or a webhook body, both untrusted) and reads its state.
 * Throws `upstream_failed` (`bad_response`) for anything that is not a training.
 */
export function parseTraining(data: unknown): { id: string; state: TrainingState } {
  if (!isRecord(data) || typeof data.id !== 'string' || !TRAINING_ID.test(data.id)) throw notATraining();
  const id = data.id;
  switch (data.status) {
    case 'starting':
    case 'processing':
      return { id, state: { status: data.status, progress: progressFromLogs(data.logs) } };
    case 'succeeded':
      return { id, state: { status: 'succeeded', weights: weightsOf(data) } };
    case 'failed':
      return { id, state: { status: 'failed', error: errorText(data.error) } };
    case 'canceled':
    case 'aborted':
      return { id, state: { status: 'canceled' } };
    default:
      throw notATraining();
  }
}

/**
 * Percent done from the last tqdm bar in the logs (`… 45%|████▌ | 450/1000 [05:02<06:10, …]`);
 * never 100 before the training says it succeeded. Null when the logs hold no bar.
 */
export function progressFromLogs(logs: unknown): number | null {
  if (typeof logs !== 'string') return null;
  let last: RegExpExecArray | null = null;
  const bar = /\|\s*(\d{1,9})\/(\d{1,9})\b/g;
  for (let m = bar.exec(logs); m; m = bar.exec(logs)) last = m;
  if (!last) return null;
  const [done, total] = [Number(last[1]), Number(last[2])];
  if (total === 0) return null;
  return Math.max(0, Math.min(99, Math.floor((done / total) * 100)));
}

function weightsOf(training: Record<string, unknown>): TrainedWeights {
  const output = training.output;
  const weights = isRecord(output) ? output.weights : undefined;
  if (typeof weights !== 'string' || !/^https?:\/\/\S+$/i.test(weights)) {
    throw upstreamFailed('replicate', 'bad_response', `Replicate training ${String(training.id)} succeeded without a weights URL.`);
  }
  return { weightsUrl: weights, version: versionOf((output as Record<string, unknown>).version, training.destination), style: null };
}

/** `owner/name:hash`; Replicate answers it so, or as the bare hash of the destination's new version. */
function versionOf(version: unknown, destination: unknown): string | null {
  if (typeof version !== 'string') return null;
  if (FULL_VERSION.test(version)) return version;
  if (BARE_VERSION.test(version) && typeof destination === 'string' && MODEL_REF.test(destination)) return `${destination}:${version}`;
  return null;
}

function errorText(error: unknown): string {
  const text = typeof error === 'string' ? error.trim() : error === null || error === undefined ? '' : JSON.stringify(error);
  return text === '' ? 'The training failed without a reason given.' : text.slice(0, ERROR_TEXT_LIMIT);
}

function notATraining(): AppError {
  return upstreamFailed('replicate', 'bad_response', 'Replicate answered with something that is not a training.');
}

function uploadedUrl(data: unknown): string {
  const url = isRecord(data) && isRecord(data.urls) ? data.urls.get : undefined;
  if (typeof url !== 'string' || !/^https?:\/\//i.test(url)) throw upstreamFailed('replicate', 'bad_response', 'Replicate answered the upload without its URL.');
  return url;
}

function formPart(boundary: string, name: string, contentType: string, bytes: Buffer, filename?: string): Buffer {
  const disposition = `form-data; name="${name}"${filename ? `; filename="${filename}"` : ''}`;
  const head = `--${boundary}\r\nContent-Disposition: ${disposition}\r\nContent-Type: ${contentType}\r\n\r\n`;
  return Buffer.concat([Buffer.from(head, 'utf8'), bytes, Buffer.from('\r\n')]);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isStatus(err: unknown, status: number): boolean {
  return isOutboundError(err) && err.kind === 'http' && err.status === status;
}
