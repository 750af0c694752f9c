import { describe, expect, it } from '@jest/globals';
import { AppConfig } from '../../../config/index.js';
import { AppError } from '../../../core/index.js';
import type { ComposedStatement, Tx } from '../../../platform/database/index.js';
import { Jobs, type JobRecord, type JobType, type NewJob } from '../../../platform/queue/index.js';
import type { BillingFacade, CreditChange } from '../../billing/index.js';
import { newContentItem, type ContentType } from '../domain/content-item.js';
import { ContentItemRepository } from '../infrastructure/content-item.repository.js';
import { GenerationOrders } from './generation-orders.js';

class FakeJobs extends Jobs {
  readonly created: NewJob[] = [];
  /** Nothing here settles jobs from outside their handlers. */
  settle = async (): Promise<boolean> => false;
  async create<T extends JobType>(_tx: Tx, job: NewJob<T>): Promise<JobRecord<T>> {
    this.created.push(job as NewJob);
    return { id: `job_${this.created.length}`, ...job } as unknown as JobRecord<T>;
  }
  addInsert(statement: ComposedStatement, job: JobRecord): void {
    statement.with('new_job', (p) => `INSERT INTO jobs (id, payload) VALUES (${p.bindAll([job.id, job.payload])})`);
  }
  async enqueue(): Promise<void> {}
  async cancel(): Promise<boolean> {
    return false;
  }

  async get(): Promise<JobRecord | null> {
    return null;
  }
  async getMany(): Promise<Map<string, JobRecord>> {
    return new Map();
  }
}

/** The statements billing runs for `place`, and what the database answers them with. */
class FakeDatabase {
  readonly statements: Array<{ sql: string; params: unknown[] }> = [];
  failWith: Error | null = null;
  async query(sql: string, params: unknown[]): Promise<unknown[]> {
    this.statements.push({ sql, params });
    if (this.failWith) throw this.failWith;
    return [{ '?column?': 1 }];
  }
}

const pgError = (code: string, constraint: string) => Object.assign(new Error(`violates ${constraint}`), { driverError: { code, constraint } });

function setup(env: Record<string, string> = {}) {
  const debits: CreditChange[] = [];
  const db = new FakeDatabase();
  const billing = {
    debit: async (_tx: Tx, c: CreditChange) => void debits.push(c),
    // As billing does: the debit joins the caller's statement, and an uncovered one is refused.
    payFor: async (statement: ComposedStatement, c: CreditChange | null) => {
      if (c) {
        debits.push(c);
        statement.with('credit_moved', (p) => `UPDATE workspaces SET credits_balance = credits_balance - ${p.bind(c.amount)}`);
      }
      try {
        await statement.run(db);
      } catch (err) {
        if (c && (err as { driverError?: { code?: string } }).driverError?.code === '23514') throw new AppError('insufficient_credits', `needs ${c.amount}`);
        throw err;
      }
    },
  } as unknown as BillingFacade;
  const jobs = new FakeJobs();
  const items = new ContentItemRepository();
  const config = new AppConfig({ JWT_SECRET: 'x'.repeat(32), TOKEN_ENCRYPTION_KEY: 'y'.repeat(32), ...env });
  return { orders: new GenerationOrders(config, billing, jobs, items), debits, jobs, db };
}

const item = (contentType: ContentType, kind: 'image' | 'video' = 'image', durationSeconds = 8) => ({
  ...newContentItem({ id: 'cnt_1', workspaceId: 'ws_1', characterId: 'char_1', platform: 'instagram', contentType, kind, imagePrompt: 'p' }, new Date()),
  video: kind === 'video' ? { durationSeconds, aspectRatio: '9:16' } : null,
});

describe('GenerationOrders', () => {
  it('charges an image item per image and records what was paid in the job', async () => {
    const { orders, debits, jobs } = setup();
    await orders.order({} as Tx, item('carousel'));
    expect(debits).toEqual([{ workspaceId: 'ws_1', amount: 9, reason: 'content_image', refType: 'content', refId: 'cnt_1' }]);
    expect(jobs.created).toEqual([{ workspaceId: 'ws_1', jobType: 'generate_image', characterId: 'char_1', contentId: 'cnt_1', payload: { credits: 9, images: 3 } }]);
  });

  it('charges a video item per second', async () => {
    const { orders, debits, jobs } = setup();
    await orders.order({} as Tx, item('reel', 'video', 12));
    expect(debits[0]).toMatchObject({ amount: 12, reason: 'content_video' });
    expect(jobs.created[0]).toMatchObject({ jobType: 'generate_video', payload: { credits: 12 } });
  });

  it('follows configured prices, and a free price debits nothing', async () => {
    const { orders, debits, jobs } = setup({ PRICE_IMAGE: '0' });
    await orders.order({} as Tx, item('single'));
    expect(debits).toEqual([]);
    expect(jobs.created[0].payload).toEqual({ credits: 0, images: 1 });
    expect(setup({ PRICE_IMAGE: '5' }).orders.chargeFor(item('carousel'))).toBe(15);
  });
});

describe('GenerationOrders.place', () => {
  it('writes the item, its job and the debit in one statement, the item pointing at its job', async () => {
    const { orders, debits, db } = setup();
    const { item: placed, job } = await orders.place(item('carousel'));
    expect(placed.jobId).toBe(job.id);
    expect(job).toMatchObject({ status: 'pending', contentId: 'cnt_1', jobType: 'generate_image', payload: { credits: 9, images: 3 } });
    expect(db.statements).toHaveLength(1);
    const [{ sql, params }] = db.statements;
    expect(sql).toMatch(/^WITH new_job AS \(INSERT INTO jobs .*\), new_item AS \(INSERT INTO content_items .*\), credit_moved AS \(UPDATE workspaces/s);
    expect(params).toContain(job.id);
    expect(params.filter((v) => v === 9)).toHaveLength(1);
    expect(debits).toEqual([{ workspaceId: 'ws_1', amount: 9, reason: 'content_image', refType: 'content', refId: 'cnt_1' }]);
  });

  it('writes no debit for a free item', async () => {
    const { orders, debits, db } = setup({ PRICE_IMAGE: '0' });
    await orders.place(item('single'));
    expect(debits).toEqual([]);
    expect(db.statements[0].sql).not.toContain('credit_moved');
  });

  it('passes on billing’s refusal of an uncovered debit', async () => {
    const { orders, db } = setup();
    db.failWith = pgError('23514', 'workspaces_credits_balance_check');
    await expect(orders.place(item('single'))).rejects.toMatchObject({ code: 'insufficient_credits' });
  });

  it('answers not_found when the character was deleted after the check', async () => {
    const { orders, db } = setup();
    db.failWith = pgError('23503', 'content_items_character_id_fkey');
    await expect(orders.place(item('single'))).rejects.toMatchObject({ code: 'not_found' });
  });

  it('passes any other database failure on unchanged', async () => {
    const { orders, db } = setup();
    const failure = pgError('23505', 'jobs_pkey');
    db.failWith = failure;
    await expect(orders.place(item('single'))).rejects.toBe(failure);
  });
});
