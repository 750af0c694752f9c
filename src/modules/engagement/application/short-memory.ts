/**
 * Answers remembered for a few seconds, per process: a burst of deliveries about one account or
 * one post asks the database once. Bounded: past `capacity` keys it starts over.
 */
export class ShortMemory<T> {
  private readonly entries = new Map<string, { value: T; until: number }>();

  /** `keep`: which answers are worth remembering (an answer that may change soon is asked again each time). */
  constructor(
    private readonly ttlMs: number,
    private readonly keep: (value: T) => boolean = () => true,
    private readonly capacity = 10_000,
  ) {}

  async get(key: string, load: () => Promise<T>, now = Date.now()): Promise<T> {
    const known = this.entries.get(key);
    if (known && known.until > now) return known.value;
    const value = await load();
    if (!this.keep(value)) return value;
    if (this.entries.size >= this.capacity) this.entries.clear();
    this.entries.set(key, { value, until: now + this.ttlMs });
    return value;
  }
}
