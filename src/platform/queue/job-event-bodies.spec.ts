import { describe, expect, it } from '@jest/globals';
import type { OutboxEvent } from '../../core/index.js';
import { OutboxEventBodies } from '../outbox/event-bodies.js';
import type { MediaUrls } from '../storage/index.js';
import { toJobBody } from './job-body.js';
import { JobEventBodies } from './job-event-bodies.js';
import type { JobRecord } from './job.types.js';
import type { JobsService } from './jobs.service.js';

const WS = 'ws_1';
const urls = { sign: (key: string) => `https://media.test/${key}?sig=x` } as unknown as MediaUrls;
const job = {
  id: 'job_1', workspaceId: WS, jobType: 'generate_image', status: 'completed', progress: 100, characterId: 'char_1', contentId: 'cnt_1',
  payload: {}, result: { content_id: 'cnt_1', outputs: [{ kind: 'image', key: 'content/cnt_1/a.png' }] }, error: null, attempts: 1,
  createdAt: new Date('2026-11-27T10:00:00Z'), startedAt: new Date('2026-11-27T10:00:01Z'), finishedAt: new Date('2026-11-27T10:00:09Z'),
} as unknown as JobRecord;

function setUp() {
  const bodies = new OutboxEventBodies();
  const jobs = { get: async (ws: string, id: string) => (ws === WS && id === job.id ? job : null) } as unknown as JobsService;
  new JobEventBodies(bodies, jobs, urls).onModuleInit();
  return bodies;
}

const event = (type: 'job.completed' | 'job.failed', jobId: string, workspaceId = WS) =>
  ({ id: 'evt_1', type, workspaceId, payload: { jobId, jobType: 'generate_image' }, occurredAt: new Date() }) as OutboxEvent;

describe('job event bodies', () => {
  it('render the job as GET /jobs/{id} answers it (its builder, the outputs signed), for both types', async () => {
    const bodies = setUp();
    expect(await bodies.render(event('job.completed', 'job_1'))).toEqual(toJobBody(job, urls));
    expect(await bodies.render(event('job.failed', 'job_1'))).toEqual(toJobBody(job, urls));
    expect(JSON.stringify(await bodies.render(event('job.completed', 'job_1')))).not.toContain('"key"');
  });

  it('answer null for a job gone, or not of the event\'s workspace', async () => {
    const bodies = setUp();
    expect(await bodies.render(event('job.completed', 'job_2'))).toBeNull();
    expect(await bodies.render(event('job.completed', 'job_1', 'ws_2'))).toBeNull();
  });
});
