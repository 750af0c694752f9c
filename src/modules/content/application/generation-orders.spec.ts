import { describe, expect, it } from '@jest/globals';
import { AppConfig } from '../../../config/index.js';
import type { Tx } from '../../../platform/database/index.js';
import { Jobs, type JobRecord, type NewJob } from '../../../platform/queue/index.js';
import type { BillingFacade, CreditChange } from '../../billing/index.js';
import { newContentItem, type ContentType } from '../domain/content-item.js';
import { GenerationOrders } from './generation-orders.js';

class FakeJobs extends Jobs {
  readonly created: NewJob[] = [];
  async create(_tx: Tx, job: NewJob): Promise<JobRecord> {
    this.created.push(job);
    return { id: `job_${this.created.length}`, ...job } as unknown as JobRecord;
  }
  async enqueue(): Promise<void> {}
  async get(): Promise<JobRecord | null> {
    return null;
  }
  async getMany(): Promise<Map<string, JobRecord>> {
    return new Map();
  }
}

function setup(env: Record<string, string> = {}) {
  const debits: CreditChange[] = [];
  const billing = { debit: async (_tx: Tx, c: CreditChange) => void debits.push(c) } as unknown as BillingFacade;
  const jobs = new FakeJobs();
  const config = new AppConfig({ JWT_SECRET: 'x'.repeat(32), TOKEN_ENCRYPTION_KEY: 'y'.repeat(32), ...env });
  return { orders: new GenerationOrders(config, billing, jobs), debits, jobs };
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
