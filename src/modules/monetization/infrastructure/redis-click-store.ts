import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { ClickStore, type ClickBatch } from '../application/ports/click-store.js';
import { clickField } from '../domain/clicks.js';

/**
 * Claims the batches whose claim lapsed, then moves the pending hash aside under a new batch id
 * (RENAME: clicks counted after it start a new hash) and claims it too. One script, so no click is
 * counted into a hash between being read and being moved. KEYS: pending hash, batch index (sorted
 * set: batch id → claimed until, ms), the new batch's hash. ARGV: now, claimed-until, new id.
 */
const TAKE = `
local out = {}
local due = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', ARGV[1], 'LIMIT', 0, 50)
for _, id in ipairs(due) do
  redis.call('ZADD', KEYS[2], ARGV[2], id)
  table.insert(out, id)
end
if redis.call('EXISTS', KEYS[1]) == 1 then
  redis.call('RENAME', KEYS[1], KEYS[3])
  redis.call('ZADD', KEYS[2], ARGV[2], ARGV[3])
  table.insert(out, ARGV[3])
end
return out`;

type WithTake = Redis & { monetizationTakeClicks(pending: string, index: string, batch: string, now: number, until: number, id: string): Promise<string[]> };

/**
 * Clicks counted in Redis, shared by every API process, in one hash (field `linkId|day`). Clicks
 * are sent as a group commit: with no send in flight a click goes at once; clicks arriving while
 * one is in flight wait for it and then go together, one HINCRBY per field they touch. Each click's
 * `add` resolves only once Redis has counted it, so a 302 is never sent for a click held in memory,
 * and under load a process makes about one round trip per Redis answer rather than one per click.
 * A flush moves the hash aside as a batch, writes it to PostgreSQL, and deletes it only after the
 * commit; a batch whose write failed, or whose worker died, stays in the index and is claimed again
 * once its claim lapses (never lost, never written twice: the database records each batch id it applied).
 */
export class RedisClickStore extends ClickStore {
  private readonly redis: WithTake;
  private readonly pendingKey: string;
  private readonly indexKey: string;
  /** Clicks waiting for the send in flight, by field. */
  private held = new Map<string, number>();
  /** The send the held clicks go in (the clicks arriving now join it), until it starts. */
  private next?: Promise<void>;
  /** The send in flight, settled either way: the next one starts after it. */
  private inFlight: Promise<void> = Promise.resolve();

  constructor(redis: Redis, prefix: string) {
    super();
    redis.defineCommand('monetizationTakeClicks', { numberOfKeys: 3, lua: TAKE });
    this.redis = redis as WithTake;
    this.pendingKey = `${prefix}:monetization:clicks`;
    this.indexKey = `${prefix}:monetization:click-batches`;
  }

  private batchKey(id: string): string {
    return `${this.pendingKey}:batch:${id}`;
  }

  add(linkId: string, day: string): Promise<void> {
    const field = clickField(linkId, day);
    this.held.set(field, (this.held.get(field) ?? 0) + 1);
    return (this.next ??= this.sendAfterInFlight());
  }

  /** Waits for the send in flight, then sends every click held by then; a failure rejects those clicks only. */
  private async sendAfterInFlight(): Promise<void> {
    await this.inFlight;
    const counts = this.held;
    this.held = new Map();
    this.next = undefined;
    const send = this.send(counts);
    this.inFlight = send.catch(() => undefined);
    await send;
  }

  private async send(counts: ReadonlyMap<string, number>): Promise<void> {
    if (counts.size === 1) {
      const [[field, n]] = counts;
      await this.redis.hincrby(this.pendingKey, field, n);
      return;
    }
    const pipeline = this.redis.pipeline();
    for (const [field, n] of counts) pipeline.hincrby(this.pendingKey, field, n);
    for (const [err] of (await pipeline.exec()) ?? []) if (err) throw err;
  }

  async take(leaseMs: number): Promise<ClickBatch[]> {
    const id = randomUUID();
    const now = Date.now();
    const ids = await this.redis.monetizationTakeClicks(this.pendingKey, this.indexKey, this.batchKey(id), now, now + leaseMs, id);
    if (ids.length === 0) return [];
    const pipeline = this.redis.pipeline();
    for (const batchId of ids) pipeline.hgetall(this.batchKey(batchId));
    const answers = (await pipeline.exec()) ?? [];
    return ids.map((batchId, i) => {
      const [err, hash] = answers[i] ?? [new Error('no answer'), null];
      if (err) throw err;
      const counts = new Map(Object.entries((hash ?? {}) as Record<string, string>).map(([field, n]) => [field, Number(n)]));
      return { id: batchId, counts };
    });
  }

  async finished(batchId: string): Promise<void> {
    await this.redis.multi().del(this.batchKey(batchId)).zrem(this.indexKey, batchId).exec();
  }

  async release(batchId: string): Promise<void> {
    await this.redis.zadd(this.indexKey, 0, batchId);
  }
}
