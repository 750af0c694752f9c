import { randomUUID } from 'node:crypto';
import { ClickStore, type ClickBatch } from '../application/ports/click-store.js';
import { clickField } from '../domain/clicks.js';

/** Clicks counted in this process (no Redis: the embedded mode, where this process also flushes). */
export class MemoryClickStore extends ClickStore {
  private pending = new Map<string, number>();
  private readonly batches = new Map<string, { counts: Map<string, number>; claimedUntil: number }>();

  async add(linkId: string, day: string): Promise<void> {
    const field = clickField(linkId, day);
    this.pending.set(field, (this.pending.get(field) ?? 0) + 1);
  }

  async take(leaseMs: number): Promise<ClickBatch[]> {
    const now = Date.now();
    const out: ClickBatch[] = [];
    for (const [id, b] of this.batches) {
      if (b.claimedUntil > now) continue;
      b.claimedUntil = now + leaseMs;
      out.push({ id, counts: b.counts });
    }
    if (this.pending.size > 0) {
      const id = randomUUID();
      this.batches.set(id, { counts: this.pending, claimedUntil: now + leaseMs });
      out.push({ id, counts: this.pending });
      this.pending = new Map();
    }
    return out;
  }

  async finished(batchId: string): Promise<void> {
    this.batches.delete(batchId);
  }

  async release(batchId: string): Promise<void> {
    const b = this.batches.get(batchId);
    if (b) b.claimedUntil = 0;
  }
}
