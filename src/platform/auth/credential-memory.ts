/**
 * How long a credential check's answer may be reused while the workspace's access stamp stays put:
 * the bound on how late a change made outside the API (a hand edit in SQL, the admin CLI without
 * Redis) is seen. Changes made through the API move the stamp and are seen on the next request.
 */
export const CREDENTIAL_RECHECK_MS = 30_000;

/** Credentials remembered at most per process and kind; the oldest is forgotten first. */
const DEFAULT_CAPACITY = 10_000;

interface Entry<T> {
  value: T;
  workspaceId: string;
  /** The access stamp read before the rows `value` came from; null: not yet confirmed under one. */
  stamp: string | null;
  /** When the credential itself ends (a session's or key's expiry), in ms. */
  validUntilMs: number;
  readAtMs: number;
}

/**
 * What checking a credential (a session, an API key) read from the database, remembered in this
 * process under its workspace's access stamp (see `RateLimiter.hitWorkspace`). Every change that
 * ends or narrows a credential moves the stamp after it commits, on every instance alike through
 * Redis; an answer is reused only while the stamp it was read under is still the current one, the
 * credential has not expired and the answer is younger than `CREDENTIAL_RECHECK_MS`.
 *
 * The stamp must be read before the rows: remembering an answer under a stamp read after them could
 * keep a credential that a change ended in between. A caller that only learns the workspace from
 * the rows remembers them unconfirmed (`stamp` null) and confirms on the next request.
 */
export class CredentialMemory<T> {
  private readonly entries = new Map<string, Entry<T>>();

  constructor(
    private readonly capacity: number = DEFAULT_CAPACITY,
    private readonly recheckMs: number = CREDENTIAL_RECHECK_MS,
  ) {}

  /** The workspace a remembered credential belongs to, current or not: which stamp to read for it. */
  workspaceOf(id: string): string | undefined {
    return this.entries.get(id)?.workspaceId;
  }

  /** The remembered answer, when `stamp` is the one it was read under and it is still young and unexpired. */
  recall(id: string, stamp: string, nowMs: number): T | undefined {
    const entry = this.entries.get(id);
    if (!entry) return undefined;
    if (entry.stamp !== stamp || entry.validUntilMs <= nowMs || nowMs - entry.readAtMs >= this.recheckMs) return undefined;
    return entry.value;
  }

  /** Remembers an answer read after `stamp` was (null: read before any stamp was). */
  remember(id: string, value: T, workspaceId: string, stamp: string | null, validUntilMs: number, nowMs: number): void {
    this.entries.delete(id);
    if (this.entries.size >= this.capacity) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(id, { value, workspaceId, stamp, validUntilMs, readAtMs: nowMs });
  }

  forget(id: string): void {
    this.entries.delete(id);
  }

  get size(): number {
    return this.entries.size;
  }
}
