import { JobStore, type OpenJobRef, type OwedFailureHook } from '../../src/platform/queue/job-store.js';
import type { JobFailure, JobFailureHookFn, JobRecord, JobSettlement } from '../../src/platform/queue/job.types.js';
import type { Tx } from '../../src/platform/database/index.js';
import { JobTransport, type CloseReport, type JobConsumerFn } from '../../src/platform/queue/transport/job-transport.js';

/**
 * An in-memory JobStore with the same conditional transitions as the SQL one, for unit tests of
 * the runner and of job handlers. `failTx` is what failure hooks receive as their transaction.
 */
export class MemoryJobStore extends JobStore {
  readonly rows = new Map<string, JobRecord>();
  readonly failTx = { fake: 'tx' } as unknown as Tx;
  /** Failure hooks owed, by job id: tries so far, and whether due now (the fake has no clock). */
  readonly owed = new Map<string, { tries: number; due: boolean }>();

  /**
   * A row of any type and payload: the platform runs whatever type a row names, so its tests use
   * made-up types that no context declares.
   */
  seed(job: Omit<Partial<JobRecord>, 'jobType' | 'payload'> & { id: string; workspaceId: string; jobType: string; payload?: Record<string, unknown> }): JobRecord {
    const row = {
      status: 'pending',
      progress: 0,
      characterId: null,
      contentId: null,
      payload: {},
      result: null,
      error: null,
      attempts: 0,
      createdAt: new Date('2024-11-21T10:00:00.000Z'),
      startedAt: null,
      finishedAt: null,
      ...job,
    } as JobRecord;
    this.rows.set(row.id, row);
    return { ...row };
  }

  async insert(_tx: Tx, job: JobRecord): Promise<void> {
    if (this.rows.has(job.id)) throw new Error(`duplicate job ${job.id}`);
    this.rows.set(job.id, { ...job });
  }

  async findInWorkspace(workspaceId: string, id: string): Promise<JobRecord | null> {
    const row = this.rows.get(id);
    return row && row.workspaceId === workspaceId ? { ...row } : null;
  }

  async findManyInWorkspace(workspaceId: string, ids: readonly string[]): Promise<JobRecord[]> {
    return ids.flatMap((id) => {
      const row = this.rows.get(id);
      return row && row.workspaceId === workspaceId ? [{ ...row }] : [];
    });
  }

  async claim(id: string): Promise<JobRecord | null> {
    return this.change(id, ['pending', 'running'], (r) => {
      r.status = 'running';
      r.attempts += 1;
      r.startedAt ??= new Date();
    });
  }

  async advance(id: string, attempt: number, progress: number): Promise<JobRecord | null> {
    const row = this.rows.get(id);
    if (!row || row.progress >= progress) return null;
    return this.change(id, ['running'], (r) => {
      r.progress = progress;
    }, attempt);
  }

  async complete(id: string, attempt: number, result: Record<string, unknown> | null): Promise<JobRecord | null> {
    return this.change(id, ['running'], (r) => {
      Object.assign(r, { status: 'completed', progress: 100, result, error: null, finishedAt: new Date() });
    }, attempt);
  }

  async cancel(_tx: unknown, workspaceId: string, id: string): Promise<boolean> {
    if (this.rows.get(id)?.workspaceId !== workspaceId) return false;
    return this.change(id, ['pending', 'running'], (r) => {
      Object.assign(r, { status: 'cancelled', finishedAt: new Date() });
    }) !== null;
  }

  async release(id: string, attempt: number): Promise<boolean> {
    return this.change(id, ['running'], (r) => {
      r.status = 'pending';
    }, attempt) !== null;
  }

  async fail(id: string, attempt: number, error: JobFailure, hook?: JobFailureHookFn): Promise<JobRecord | null> {
    const before = this.rows.get(id);
    const snapshot = before ? { ...before } : undefined;
    const failed = this.change(id, ['running'], (r) => {
      Object.assign(r, { status: 'failed', error, finishedAt: new Date() });
    }, attempt);
    if (failed && hook) {
      try {
        await hook(this.failTx, failed);
      } catch (err) {
        this.rows.set(id, snapshot!); // the transaction rolls back
        throw err;
      }
    }
    return failed;
  }

  async settle(_tx: Tx, workspaceId: string, id: string, s: JobSettlement): Promise<boolean> {
    const row = this.rows.get(id);
    if (row?.workspaceId !== workspaceId) return false;
    const end = s.status === 'completed' ? { status: 'completed', progress: 100, result: s.result, error: null } : { status: 'failed', error: s.error };
    return this.change(id, ['pending', 'running'], (r) => void Object.assign(r, end, { finishedAt: new Date() })) !== null;
  }

  async openJobs(before: Date, limit: number, after?: OpenJobRef): Promise<OpenJobRef[]> {
    const key = (r: OpenJobRef) => `${r.createdAt.toISOString()} ${r.id}`;
    return [...this.rows.values()]
      .filter((r) => (r.status === 'pending' || r.status === 'running') && r.createdAt < before && (!after || key(r) > key(after)))
      .sort((a, b) => (key(a) < key(b) ? -1 : 1))
      .slice(0, limit)
      .map((r) => ({ id: r.id, createdAt: r.createdAt }));
  }

  async failOwingHook(id: string, attempt: number, error: JobFailure): Promise<JobRecord | null> {
    const failed = this.change(id, ['running'], (r) => {
      Object.assign(r, { status: 'failed', error, finishedAt: new Date() });
    }, attempt);
    if (failed) this.owed.set(id, { tries: 0, due: false });
    return failed;
  }

  /** Makes every owed hook due, as time passing would. */
  makeOwedHooksDue(): void {
    for (const debt of this.owed.values()) debt.due = true;
  }

  async owedHooks(limit: number): Promise<OwedFailureHook[]> {
    return [...this.owed.entries()].filter(([, d]) => d.due).slice(0, limit).map(([id, d]) => ({ job: { ...this.rows.get(id)! }, tries: d.tries }));
  }

  async payOwedHook(id: string, hook: JobFailureHookFn | undefined): Promise<boolean> {
    if (!this.owed.has(id)) return false;
    if (hook) await hook(this.failTx, { ...this.rows.get(id)! }); // a throw rolls back: the debt stays
    this.owed.delete(id);
    return true;
  }

  async deferOwedHook(id: string): Promise<void> {
    const debt = this.owed.get(id);
    if (debt) Object.assign(debt, { tries: debt.tries + 1, due: false });
  }

  /** A conditional change, as the SQL store's: from one of `from`, and as `attempt` when given. */
  private change(id: string, from: JobRecord['status'][], apply: (r: JobRecord) => void, attempt?: number): JobRecord | null {
    const row = this.rows.get(id);
    if (!row || !from.includes(row.status) || (attempt !== undefined && row.attempts !== attempt)) return null;
    apply(row);
    return { ...row };
  }
}

/** A transport that records what was sent and runs nothing until told to. */
export class RecordingTransport extends JobTransport {
  readonly added: string[] = [];
  consumer?: JobConsumerFn;
  closed = false;

  async add(jobId: string): Promise<void> {
    this.added.push(jobId);
  }

  consume(run: JobConsumerFn): void {
    this.consumer = run;
  }

  async close(): Promise<CloseReport> {
    this.closed = true;
    return { finished: 0, abandoned: 0, dropped: [] };
  }
}
