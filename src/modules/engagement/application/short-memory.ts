/**
 * Answers remembered for a few seconds, per process: a burst of deliveries about one account or
 * one post asks the database once. Bounded: past `capacity` keys it starts over.
 */
export class ShortMemory<T> {
  private readonly entries = new Map<string, { value: T; until: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly capacity = 10_000,
  ) {}

  async get(key: string, load: () => Promise<T>, now = Date.now()): Promise<T> {
    const known = this.entries.get(key);
    if (known && known.until > now) return known.value;
    const value = await load();
    if (this.entries.size >= this.capacity) this.entries.clear();
    this.entries.set(key, { value, until: now + this.ttlMs });
    return value;
  }
}
