import { describe, expect, it } from '@jest/globals';
import type { AppConfig } from '../../config/index.js';
import type { Tx } from '../database/index.js';
import type { Wakeups } from '../redis/redis.module.js';
import { Outbox, OUTBOX_WAKEUP } from './outbox.js';
import { OutboxSubscribers } from './subscribers.js';

const config = { tokenEncryptionKey: 'outbox-spec-key-0123456789abcdef0123456789' } as AppConfig;
const handle = async () => undefined;

/** The statements `record` sends, with their parameters; each writes `written` rows (0: the interest held for nobody). */
function capture(written = 1): { tx: Tx; sent: Array<{ sql: string; params: unknown[] }> } {
  const sent: Array<{ sql: string; params: unknown[] }> = [];
  const rows = Array.from({ length: written }, () => ({ id: 'evt_x' }));
  const tx = { query: async (sql: string, params: unknown[]) => { sent.push({ sql, params }); return rows; } } as unknown as Tx;
  return { tx, sent };
}

/** The wake-ups signalled, by name. */
function signals(): { wakeups: Wakeups; names: string[] } {
  const names: string[] = [];
  return { wakeups: { signal: (name: string) => void names.push(name) } as unknown as Wakeups, names };
}

describe('Outbox.record and the subscribers\' interest', () => {
  it('writes an event unconditionally when a subscriber of its type has no interest condition', async () => {
    const subscribers = new OutboxSubscribers();
    subscribers.register({ name: 'mail', types: ['credits.low'], handle });
    subscribers.register({ name: 'webhooks', types: ['credits.low', 'job.completed'], handle, interest: 'EXISTS (SELECT 1 FROM t WHERE w = :workspace_id AND k = :type)' });
    const { tx, sent } = capture();
    await new Outbox(config, subscribers, signals().wakeups).record(tx, { type: 'credits.low', workspaceId: 'ws_1', payload: { threshold: 25, remaining: 1, granted: 4, balance: 1, resetsAt: null } });
    expect(sent).toHaveLength(1);
    expect(sent[0].sql).not.toContain('WHERE');
    expect(sent[0].params.slice(1, 3)).toEqual(['credits.low', 'ws_1']);
  });

  it('writes an event only under its subscribers\' interest when every one has a condition, bound to the event', async () => {
    const subscribers = new OutboxSubscribers();
    subscribers.register({ name: 'webhooks', types: ['job.completed'], handle, interest: 'EXISTS (SELECT 1 FROM t WHERE w = :workspace_id AND k = :type)' });
    subscribers.register({ name: 'other', types: ['job.completed'], handle, interest: 'false' });
    const { tx, sent } = capture();
    await new Outbox(config, subscribers, signals().wakeups).record(tx, { type: 'job.completed', workspaceId: 'ws_1', payload: { jobId: 'job_1', jobType: 'x' } });
    expect(sent[0].sql).toMatch(/SELECT \$1, \$2, \$3, \$4, \$5, COALESCE\(\$6::timestamptz, now\(\)\) WHERE \(EXISTS \(SELECT 1 FROM t WHERE w = \$3 AND k = \$2\)\) OR \(false\) RETURNING id$/);
  });

  it('holds an event back until its availableAt, and delivers others at once', async () => {
    const { tx, sent } = capture();
    const outbox = new Outbox(config, new OutboxSubscribers(), signals().wakeups);
    const at = new Date('2026-11-28T12:00:00Z');
    await outbox.record(tx, { type: 'engagement.reply_due', workspaceId: 'ws_1', payload: { messageId: 'cmsg_1', conversationId: 'cnv_1' }, availableAt: at });
    await outbox.record(tx, { type: 'engagement.reply_due', workspaceId: 'ws_1', payload: { messageId: 'cmsg_2', conversationId: 'cnv_1' } });
    expect(sent.map((s) => s.params[5])).toEqual([at, null]);
  });

  it('keeps an event no subscriber handles yet', async () => {
    const { tx, sent } = capture();
    await new Outbox(config, new OutboxSubscribers(), signals().wakeups).record(tx, { type: 'job.failed', workspaceId: 'ws_1', payload: { jobId: 'job_1', jobType: 'x' } });
    expect(sent[0].sql).not.toContain('WHERE');
  });

  it('wakes a dispatcher only when the event was written', async () => {
    const subscribers = new OutboxSubscribers();
    subscribers.register({ name: 'webhooks', types: ['job.completed'], handle, interest: 'EXISTS (SELECT 1 FROM t WHERE w = :workspace_id)' });
    const event = { type: 'job.completed', workspaceId: 'ws_1', payload: { jobId: 'job_1', jobType: 'x' } } as const;
    const written = signals();
    await new Outbox(config, subscribers, written.wakeups).record(capture(1).tx, event);
    expect(written.names).toEqual([OUTBOX_WAKEUP]);
    const skipped = signals();
    await new Outbox(config, subscribers, skipped.wakeups).record(capture(0).tx, event);
    expect(skipped.names).toEqual([]);
  });

  it('refuses an interest written with positional parameters', () => {
    expect(() => new OutboxSubscribers().register({ name: 'bad', types: ['job.failed'], handle, interest: 'w = $3' })).toThrow('binds :workspace_id and :type');
  });
});
