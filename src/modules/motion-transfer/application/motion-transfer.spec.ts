import { beforeEach, describe, expect, it } from '@jest/globals';
import type { DataSource } from 'typeorm';
import { AppConfig } from '../../../config/index.js';
import { AppError, type Page, type PageRequest } from '../../../core/index.js';
import type { Tx } from '../../../platform/database/index.js';
import { Jobs, type JobContext, type JobRecord, type JobSettlement, type JobType, type NewJob } from '../../../platform/queue/index.js';
import type { Storage, StoredObject } from '../../../platform/storage/index.js';
import type { BillingFacade, CreditChange } from '../../billing/index.js';
import type { Character, CharactersFacade } from '../../characters/index.js';
import type { MotionTransferRequest, VideoGenerator } from '../../generation/index.js';
import type { MotionTransfer, MotionTransferStatus } from '../domain/motion-transfer.js';
import type { MotionTransferChanges, MotionTransferRepository } from '../infrastructure/motion-transfer.repository.js';
import { MotionInputs } from './motion-inputs.js';
import { MotionTransferJob } from './motion-transfer.job.js';
import { MotionTransferService } from './motion-transfer.service.js';
import type { CharacterImages, PrimaryImage } from './ports/character-images.js';
import type { ReferenceVideoDownloader } from './ports/reference-video-downloader.js';

const WS = 'ws_A';
const CHAR = 'char_01ARZ3NDEKTSV4RRFFQ69G5FAV';
const MP4 = Buffer.concat([Buffer.from([0, 0, 0, 24]), Buffer.from('ftypisom'), Buffer.alloc(28, 1)]);
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);
const config = new AppConfig({ JWT_SECRET: 'j'.repeat(32), TOKEN_ENCRYPTION_KEY: 'k'.repeat(32), PUBLIC_URL: 'http://media.test' });

class MemoryTransfers {
  readonly rows = new Map<string, MotionTransfer>();
  /** Simulates the process dying between storing the outputs and marking the transfer completed. */
  crashOnComplete = false;
  async insert(_m: Tx, mt: MotionTransfer) {
    this.rows.set(mt.id, { ...mt });
  }
  async find(_m: Tx, ws: string, id: string) {
    const r = this.rows.get(id);
    return r && r.workspaceId === ws ? { ...r } : null;
  }
  async findByJob(_m: Tx, ws: string, jobId: string) {
    const r = [...this.rows.values()].find((x) => x.jobId === jobId && x.workspaceId === ws);
    return r ? { ...r } : null;
  }
  async list(_m: Tx, ws: string, characterId: string, req: PageRequest): Promise<Page<MotionTransfer>> {
    const items = [...this.rows.values()].filter((r) => r.workspaceId === ws && r.characterId === characterId).reverse();
    return { items, page: req.page, pageSize: req.pageSize, total: items.length };
  }
  async move(_m: Tx, ws: string, id: string, from: MotionTransferStatus[], to: MotionTransferStatus, changes: MotionTransferChanges = {}) {
    if (to === 'completed' && this.crashOnComplete) {
      this.crashOnComplete = false;
      throw new Error('connection lost');
    }
    const r = this.rows.get(id);
    if (!r || r.workspaceId !== ws || !from.includes(r.status)) return null;
    Object.assign(r, changes, { status: to, updatedAt: new Date() });
    return { ...r };
  }
  async saveSource(_m: Tx, ws: string, id: string, sourceKey: string) {
    const r = this.rows.get(id);
    if (r && r.workspaceId === ws) r.sourceKey = sourceKey;
  }
}

class MemoryStorage {
  readonly objects = new Map<string, { body: Buffer; contentType: string }>();
  puts = 0;
  async put(key: string, body: Buffer, contentType: string): Promise<StoredObject> {
    this.puts += 1;
    this.objects.set(key, { body, contentType });
    return { key, url: this.urlFor(key) };
  }
  async get(key: string) {
    return this.objects.get(key) ?? null;
  }
  async delete(key: string) {
    this.objects.delete(key);
  }
  urlFor(key: string) {
    return `http://media.test/api/v1/media/${key}`;
  }
}

class FakeBilling {
  balance = 100;
  readonly moves: Array<CreditChange & { sign: 1 | -1 }> = [];
  async debit(_tx: Tx, c: CreditChange) {
    if (c.amount > this.balance) throw new AppError('insufficient_credits', `This needs ${c.amount} credits; the workspace has ${this.balance}.`);
    this.balance -= c.amount;
    this.moves.push({ ...c, sign: -1 });
  }
  async credit(_tx: Tx, c: CreditChange) {
    this.balance += c.amount;
    this.moves.push({ ...c, sign: 1 });
  }
}

class FakeJobs extends Jobs {
  readonly rows = new Map<string, JobRecord>();
  readonly enqueued: string[] = [];
  /** The jobs ended by their work's owner, with the transaction they were ended in. */
  readonly settled: Array<{ tx: Tx; id: string; settlement: JobSettlement }> = [];
  settle = async (tx: Tx, _ws: string, id: string, settlement: JobSettlement): Promise<boolean> => {
    this.settled.push({ tx, id, settlement });
    return true;
  };
  async create<T extends JobType>(_tx: Tx, j: NewJob<T>): Promise<JobRecord<T>> {
    const job = this.prepare(j);
    this.rows.set(job.id, job);
    return job;
  }
  addInsert(): void {
    throw new Error('motion transfer writes its job with create');
  }
  async enqueue(job: JobRecord) {
    this.enqueued.push(job.id);
  }
  async cancel(): Promise<boolean> {
    return false;
  }

  async get(ws: string, id: string) {
    const j = this.rows.get(id);
    return j && j.workspaceId === ws ? j : null;
  }
  async getMany(ws: string, ids: readonly string[]) {
    return new Map([...this.rows].filter(([id, j]) => ids.includes(id) && j.workspaceId === ws));
  }
}

function character(): Character {
  const now = new Date();
  return {
    id: CHAR, workspaceId: WS, name: 'Mia', niche: 'dance', appearance: { aesthetic: 'neon' }, identity: {}, personality: { tone: 'bold' }, style: { presets: ['film'] },
    settings: {}, referenceImages: [], talkingHeadEnabled: false, autopilot: false, faceConsistencyTier: 'ip_adapter', loraTrainingStatus: 'none',
    contentCount: 0, followerCount: 0, lastPostDate: null, isDefault: false, timezone: null, faceEmbeddingUpdatedAt: null, createdAt: now, updatedAt: now,
  };
}

function setup() {
  const transfers = new MemoryTransfers();
  const storage = new MemoryStorage();
  const billing = new FakeBilling();
  const jobs = new FakeJobs();
  const tx = { marker: 'tx' } as unknown as Tx;
  const ds = { manager: {}, transaction: (work: (t: Tx) => Promise<unknown>) => work(tx) } as unknown as DataSource;
  const get = async (ws: string, id: string) => {
    if (ws !== WS || id !== CHAR) throw AppError.notFound('Character');
    return character();
  };
  const characters = { get, getForGeneration: get } as unknown as CharactersFacade;
  let primary: PrimaryImage | null = { storageKey: `characters/${CHAR}/ref_1.png`, contentType: 'image/png', url: 'http://media.test/x.png' };
  const images = { primaryImage: async () => primary } as unknown as CharacterImages;
  void storage.put(`characters/${CHAR}/ref_1.png`, PNG, 'image/png');
  storage.puts = 0;
  const downloads: string[] = [];
  let served: Buffer = MP4;
  const downloader = {
    download: async (url: string) => {
      downloads.push(url);
      return served;
    },
  } as unknown as ReferenceVideoDownloader;
  const generated: MotionTransferRequest[] = [];
  let generator: (req: MotionTransferRequest) => Promise<{ video: { bytes: Buffer; contentType: string }; thumbnail?: { bytes: Buffer; contentType: string } }> = async () => ({
    video: { bytes: Buffer.from('GIF89a-out'), contentType: 'image/gif' },
    thumbnail: { bytes: PNG, contentType: 'image/png' },
  });
  const video = {
    motionTransfer: async (req: MotionTransferRequest) => {
      generated.push(req);
      return generator(req);
    },
  } as unknown as VideoGenerator;
  const repo = transfers as unknown as MotionTransferRepository;
  const service = new MotionTransferService(ds, repo, characters, images, billing as unknown as BillingFacade, jobs, storage as unknown as Storage, config);
  const inputs = new MotionInputs(ds, repo, storage as unknown as Storage, downloader, characters, images);
  const job = new MotionTransferJob(ds, repo, inputs, video, storage as unknown as Storage, billing as unknown as BillingFacade, config, jobs);
  return {
    tx, transfers, storage, billing, jobs, service, job, downloads, generated,
    setPrimary: (p: PrimaryImage | null) => (primary = p),
    serve: (b: Buffer) => (served = b),
    setGenerator: (g: typeof generator) => (generator = g),
  };
}

type Setup = ReturnType<typeof setup>;

async function errorOf(p: Promise<unknown>): Promise<AppError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error('expected an AppError');
}

/** Runs the handler as the job runner would, collecting the reported progress. */
async function runJob(s: Setup, jobId: string) {
  const progress: number[] = [];
  const job = s.jobs.rows.get(jobId) as JobRecord<'motion_transfer'>;
  const ctx: JobContext<'motion_transfer'> = { job: { ...job, status: 'running' }, progress: async (p) => void progress.push(p), signal: new AbortController().signal };
  return { result: await s.job.run(ctx), progress };
}

describe('MotionTransferService.start', () => {
  let s: Setup;
  beforeEach(() => {
    s = setup();
  });

  it('charges ceil(duration/5) × 10 with a ledger reference, creates the job and the queued transfer, then enqueues', async () => {
    const started = await s.service.start(WS, CHAR, { source: { kind: 'url', url: 'https://cdn.example.com/a.mp4' }, durationSeconds: 12, aspectRatio: '1:1' });
    expect(started.pricing).toEqual({ creditsPerFiveSeconds: 10, estimatedCredits: 30 });
    expect(started.motionTransfer).toMatchObject({ status: 'queued', source: 'url', referenceVideoUrl: 'https://cdn.example.com/a.mp4', sourceKey: null, durationSeconds: 12, aspectRatio: '1:1', creditsCharged: 30, jobId: started.job.id });
    expect(started.job).toMatchObject({ jobType: 'motion_transfer', characterId: CHAR, payload: { motion_transfer_id: started.motionTransfer.id, credits: 30 } });
    expect(s.billing.moves).toEqual([{ workspaceId: WS, amount: 30, reason: 'motion_transfer', refType: 'motion_transfer', refId: started.motionTransfer.id, sign: -1 }]);
    expect(s.jobs.enqueued).toEqual([started.job.id]);
    expect(s.transfers.rows.size).toBe(1);
  });

  it('defaults to 10 seconds (20 credits) and 9:16', async () => {
    const started = await s.service.start(WS, CHAR, { source: { kind: 'url', url: 'https://cdn.example.com/a.mp4' } });
    expect(started.motionTransfer).toMatchObject({ durationSeconds: 10, aspectRatio: '9:16', creditsCharged: 20 });
  });

  it('stores an upload under the transfer and shows its stored URL', async () => {
    const started = await s.service.start(WS, CHAR, { source: { kind: 'upload', bytes: MP4 } });
    const key = `motion/${started.motionTransfer.id}/source.mp4`;
    expect(started.motionTransfer).toMatchObject({ source: 'upload', sourceKey: key, referenceVideoUrl: `http://media.test/api/v1/media/${key}` });
    expect(s.storage.objects.get(key)).toEqual({ body: MP4, contentType: 'video/mp4' });
  });

  it('refuses a non-video upload with 415 and an oversized one with 413, storing and charging nothing', async () => {
    expect((await errorOf(s.service.start(WS, CHAR, { source: { kind: 'upload', bytes: Buffer.from('not a video at all') } }))).code).toBe('unsupported_media_type');
    const big = Buffer.alloc(100 * 1024 * 1024 + 1);
    expect((await errorOf(s.service.start(WS, CHAR, { source: { kind: 'upload', bytes: big } }))).code).toBe('payload_too_large');
    expect(s.storage.puts).toBe(0);
    expect(s.billing.moves).toEqual([]);
  });

  it('answers 409 without a primary reference image, 404 for a foreign character; nothing created', async () => {
    s.setPrimary(null);
    const e = await errorOf(s.service.start(WS, CHAR, { source: { kind: 'url', url: 'https://x.example/a.mp4' } }));
    expect(e.code).toBe('invalid_state_transition');
    expect(e.message).toMatch(/primary reference image/);
    expect((await errorOf(s.service.start('ws_B', CHAR, { source: { kind: 'url', url: 'https://x.example/a.mp4' } }))).code).toBe('not_found');
    expect(s.transfers.rows.size).toBe(0);
    expect(s.jobs.rows.size).toBe(0);
  });

  it('on 402 removes the stored upload and enqueues nothing', async () => {
    s.billing.balance = 10;
    expect((await errorOf(s.service.start(WS, CHAR, { source: { kind: 'upload', bytes: MP4 }, durationSeconds: 60 }))).code).toBe('insufficient_credits');
    expect([...s.storage.objects.keys()].filter((k) => k.startsWith('motion/'))).toEqual([]);
    expect(s.jobs.enqueued).toEqual([]);
  });
});

describe('MotionTransferService.get and list', () => {
  it('finds a transfer by its mt id or its job id, only under its own character and workspace', async () => {
    const s = setup();
    const { motionTransfer: mt, job } = await s.service.start(WS, CHAR, { source: { kind: 'url', url: 'https://x.example/a.mp4' } });
    expect((await s.service.get(WS, CHAR, mt.id)).motionTransfer.id).toBe(mt.id);
    expect((await s.service.get(WS, CHAR, job.id)).job.id).toBe(job.id);
    for (const [ws, ch, ref] of [
      ['ws_B', CHAR, mt.id],
      [WS, 'char_01ARZ3NDEKTSV4RRFFQ69G5FAW', mt.id],
      [WS, CHAR, 'mt_01ARZ3NDEKTSV4RRFFQ69G5FAV'],
      [WS, CHAR, 'nonsense'],
      [WS, CHAR, CHAR],
    ]) {
      expect((await errorOf(s.service.get(ws, ch, ref))).code).toBe('not_found');
    }
    expect((await s.service.list(WS, CHAR, { page: 1, pageSize: 20 })).total).toBe(1);
  });
});

describe('MotionTransferJob', () => {
  let s: Setup;
  beforeEach(() => {
    s = setup();
  });

  it('downloads, stores the source, transfers and completes: queued → processing → completed', async () => {
    const { motionTransfer: mt, job } = await s.service.start(WS, CHAR, { source: { kind: 'url', url: 'https://x.example/a.mp4' }, durationSeconds: 15 });
    const { result, progress } = await runJob(s, job.id);
    const done = s.transfers.rows.get(mt.id)!;
    expect(done).toMatchObject({
      status: 'completed',
      sourceKey: `motion/${mt.id}/source.mp4`,
      videoKey: `motion/${mt.id}/${job.id}-out.gif`,
      videoUrl: `http://media.test/api/v1/media/motion/${mt.id}/${job.id}-out.gif`,
      thumbnailKey: `motion/${mt.id}/${job.id}-thumb.png`,
      error: null,
    });
    // Storage keys in the row; reads sign them into URLs (`result.outputs`).
    expect(result).toEqual({
      motion_transfer_id: mt.id, duration_seconds: 15,
      outputs: [{ kind: 'video', key: expect.stringMatching(/-out\./) }, { kind: 'thumbnail', key: expect.stringMatching(/-thumb\./) }],
    });
    // The job ends with the transfer, in the transaction that completes it.
    expect(s.jobs.settled).toEqual([{ tx: s.tx, id: job.id, settlement: { status: 'completed', result } }]);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
    expect(s.downloads).toEqual(['https://x.example/a.mp4']);
    expect(s.generated[0]).toMatchObject({ jobId: job.id, durationSeconds: 15, aspectRatio: '9:16', characterImage: { bytes: PNG, contentType: 'image/png' }, referenceVideo: { bytes: MP4, contentType: 'video/mp4' } });
    expect(s.generated[0].character).toMatchObject({ id: CHAR, name: 'Mia', tone: 'bold', aesthetic: 'neon', stylePresets: ['film'], primaryImageUrl: 'http://media.test/x.png' });
  });

  it('does the work once: a re-delivered job of a completed transfer changes nothing', async () => {
    const { job } = await s.service.start(WS, CHAR, { source: { kind: 'url', url: 'https://x.example/a.mp4' } });
    const first = await runJob(s, job.id);
    const puts = s.storage.puts;
    const again = await runJob(s, job.id);
    expect(again.result).toEqual(first.result);
    expect(s.jobs.settled).toHaveLength(1);
    expect(s.generated).toHaveLength(1);
    expect(s.downloads).toHaveLength(1);
    expect(s.storage.puts).toBe(puts);
  });

  it('after a crash before completing, a re-delivered run downloads nothing again and overwrites the same keys', async () => {
    const { motionTransfer: mt, job } = await s.service.start(WS, CHAR, { source: { kind: 'url', url: 'https://x.example/a.mp4' } });
    s.transfers.crashOnComplete = true;
    await expect(runJob(s, job.id)).rejects.toThrow('connection lost');
    expect(s.transfers.rows.get(mt.id)!.status).toBe('processing');
    await runJob(s, job.id);
    expect(s.downloads).toHaveLength(1);
    expect(s.generated).toHaveLength(2);
    expect([...s.storage.objects.keys()].filter((k) => k.startsWith(`motion/${mt.id}/`)).sort()).toEqual([
      `motion/${mt.id}/${job.id}-out.gif`,
      `motion/${mt.id}/${job.id}-thumb.png`,
      `motion/${mt.id}/source.mp4`,
    ]);
    expect(s.transfers.rows.get(mt.id)).toMatchObject({ status: 'completed', videoKey: `motion/${mt.id}/${job.id}-out.gif` });
  });

  it('keeps no thumbnail when the provider makes none', async () => {
    const { motionTransfer: mt, job } = await s.service.start(WS, CHAR, { source: { kind: 'url', url: 'https://x.example/a.mp4' } });
    s.setGenerator(async () => ({ video: { bytes: Buffer.from('mp4'), contentType: 'video/mp4' } }));
    await runJob(s, job.id);
    expect(s.transfers.rows.get(mt.id)).toMatchObject({ status: 'completed', videoKey: `motion/${mt.id}/${job.id}-out.mp4`, thumbnailKey: null, thumbnailUrl: null });
  });

  it('reads an upload from storage instead of downloading', async () => {
    const { job } = await s.service.start(WS, CHAR, { source: { kind: 'upload', bytes: MP4 } });
    await runJob(s, job.id);
    expect(s.downloads).toEqual([]);
    expect(s.generated[0].referenceVideo).toEqual({ bytes: MP4, contentType: 'video/mp4' });
  });

  it('fails readably when the URL serves something that is not a video', async () => {
    const { job } = await s.service.start(WS, CHAR, { source: { kind: 'url', url: 'https://x.example/a.mp4' } });
    s.serve(Buffer.from('<html>not found</html>'));
    const e = await errorOf(runJob(s, job.id));
    expect(e.code).toBe('unsupported_media_type');
    expect(e.message).toMatch(/MP4, MOV or WebM/);
    expect(s.generated).toEqual([]);
  });

  it('turns an unexpected provider error into a readable upstream_failed', async () => {
    const { job } = await s.service.start(WS, CHAR, { source: { kind: 'url', url: 'https://x.example/a.mp4' } });
    s.setGenerator(async () => {
      throw new Error('socket hang up at 10.0.0.3');
    });
    const e = await errorOf(runJob(s, job.id));
    expect(e.code).toBe('upstream_failed');
    expect(e.message).not.toMatch(/10\.0\.0\.3/);
  });

  it('on failure marks the transfer failed with the job error and refunds it exactly once', async () => {
    s.billing.balance = 200;
    const { motionTransfer: mt, job } = await s.service.start(WS, CHAR, { source: { kind: 'url', url: 'https://x.example/a.mp4' }, durationSeconds: 60 });
    expect(s.billing.balance).toBe(80);
    const failed = { ...job, status: 'failed', error: { code: 'validation_failed', message: 'The reference video could not be downloaded: blocked.' } } as JobRecord<'motion_transfer'>;
    await s.job.onFailed({} as Tx, failed);
    await s.job.onFailed({} as Tx, failed);
    expect(s.transfers.rows.get(mt.id)).toMatchObject({ status: 'failed', error: failed.error });
    expect(s.billing.balance).toBe(200);
    expect(s.billing.moves.filter((m) => m.sign === 1)).toEqual([
      { workspaceId: WS, amount: 120, reason: 'motion_transfer_refund', refType: 'motion_transfer', refId: mt.id, sign: 1 },
    ]);
  });

  it('keeps the charge of a completed transfer, and refunds from the job when the transfer row is gone', async () => {
    const { motionTransfer: mt, job } = await s.service.start(WS, CHAR, { source: { kind: 'url', url: 'https://x.example/a.mp4' } });
    await runJob(s, job.id);
    const failed = { ...job, status: 'failed', error: { code: 'job_failed', message: 'x' } } as JobRecord<'motion_transfer'>;
    await s.job.onFailed({} as Tx, failed);
    expect(s.billing.balance).toBe(80);
    s.transfers.rows.delete(mt.id);
    await s.job.onFailed({} as Tx, failed);
    expect(s.billing.balance).toBe(100);
  });
});
