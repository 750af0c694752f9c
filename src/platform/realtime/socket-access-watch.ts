import { Logger } from '@nestjs/common';
import { API_KEY_PREFIX, type Caller } from '../../core/index.js';
import type { SocketSession } from './socket-session.js';
import { outages } from '../health/outages.js';

/** How often the watch looks at the access stamps and at sockets whose check is due. */
export const WATCH_TICK_MS = 1_000;
/** Credential checks run at once per tick at most, so a moved stamp of a big workspace does not drain the pool. */
const CHECK_CONCURRENCY = 8;
/** After a check that failed (database unreachable), the socket is tried again this much later. */
const RETRY_AFTER_FAILURE_MS = 5_000;

export interface AccessWatchDeps {
  /** The access stamp of each workspace (moved by logout, refresh-token reuse, plan and role changes, key revocation). */
  readStamps(workspaceIds: string[]): Promise<Map<string, string>>;
  /** The credential's caller as the database has it now, or null; counts no request. */
  recheck(token: string): Promise<Caller | null>;
  /** The bound: every socket's credential is checked again at least this often. */
  recheckMs: number;
  now?: () => number;
}

interface Watched {
  /** The workspace's access stamp read before the socket's credential was last checked. */
  stamp?: string;
  dueAtMs: number;
}

/**
 * Keeps each open socket no longer than its credential, with the bound HTTP has. A tick reads the
 * access stamps of the workspaces with sockets here (one round trip to Redis, or memory in embedded
 * mode); a socket whose workspace's stamp moved since its last check, whose check is older than the
 * bound, or whose access token expired, has its credential checked again, one check per distinct
 * credential however many sockets share it. Delivering an event costs nothing: no check per event.
 */
export class SocketAccessWatch {
  private readonly logger = new Logger('Realtime');
  private readonly watched = new Map<SocketSession, Watched>();
  private running?: Promise<void>;
  private readonly now: () => number;

  constructor(private readonly deps: AccessWatchDeps) {
    this.now = deps.now ?? Date.now;
  }

  get size(): number {
    return this.watched.size;
  }

  /**
   * Watches a socket that just authenticated. The stamp is read after its check, so a change that
   * moved it between the two is seen only by the periodic check, still within the bound.
   */
  async add(session: SocketSession): Promise<void> {
    const workspaceId = session.caller?.workspaceId;
    if (!workspaceId || !session.token) return;
    const entry: Watched = { dueAtMs: this.nextDue(session) };
    this.watched.set(session, entry);
    try {
      entry.stamp ??= (await this.deps.readStamps([workspaceId])).get(workspaceId);
    } catch (err) {
      if (!(await outages.covers(err))) this.logger.warn({ msg: 'could not read the access stamp of a new socket', err: String(err) });
    }
  }

  remove(session: SocketSession): void {
    this.watched.delete(session);
  }

  /** One pass; a pass still running when the next tick comes lets that tick pass. */
  tick(): Promise<void> {
    this.running ??= this.pass().finally(() => (this.running = undefined));
    return this.running;
  }

  private async pass(): Promise<void> {
    if (this.watched.size === 0) return;
    const workspaceIds = new Set<string>();
    for (const session of this.watched.keys()) workspaceIds.add(session.caller!.workspaceId);
    let stamps: Map<string, string>;
    try {
      stamps = await this.deps.readStamps([...workspaceIds]);
    } catch (err) {
      if (!(await outages.covers(err))) this.logger.warn({ msg: 'could not read access stamps; checking due sockets only', err: String(err) });
      stamps = new Map();
    }
    const now = this.now();
    const dueByToken = new Map<string, SocketSession[]>();
    for (const [session, entry] of this.watched) {
      const stamp = stamps.get(session.caller!.workspaceId);
      const moved = stamp !== undefined && stamp !== entry.stamp;
      if (!moved && entry.dueAtMs > now) continue;
      const group = dueByToken.get(session.token!) ?? [];
      group.push(session);
      dueByToken.set(session.token!, group);
    }
    const groups = [...dueByToken.entries()];
    const workers = Array.from({ length: Math.min(CHECK_CONCURRENCY, groups.length) }, async () => {
      for (let next = groups.shift(); next; next = groups.shift()) await this.check(next[0], next[1], stamps);
    });
    await Promise.all(workers);
  }

  private async check(token: string, sessions: SocketSession[], stamps: Map<string, string>): Promise<void> {
    let caller: Caller | null;
    try {
      caller = await this.deps.recheck(token);
    } catch (err) {
      if (!(await outages.covers(err))) this.logger.error({ msg: 'socket credential check failed', err: String(err) });
      // Due again a little later (the moved stamp is taken as seen, so it does not retry every tick).
      for (const session of sessions) {
        const entry = this.watched.get(session);
        if (!entry) continue;
        entry.stamp = stamps.get(session.caller!.workspaceId) ?? entry.stamp;
        entry.dueAtMs = this.now() + Math.min(RETRY_AFTER_FAILURE_MS, this.deps.recheckMs);
      }
      return;
    }
    for (const session of sessions) {
      const entry = this.watched.get(session);
      if (!entry) continue;
      // The stamp read before this check: a change that moves it later is seen on a later tick.
      entry.stamp = stamps.get(session.caller!.workspaceId) ?? entry.stamp;
      entry.dueAtMs = this.nextDue(session);
      session.confirm(caller);
      if (!session.isOpen) this.watched.delete(session);
    }
  }

  /** The next periodic check, or the access token's expiry when that comes first. */
  private nextDue(session: SocketSession): number {
    const periodic = this.now() + this.deps.recheckMs;
    const expiry = accessTokenExpiryMs(session.token!);
    return expiry === undefined ? periodic : Math.min(periodic, expiry);
  }
}

/**
 * When a session access token says it expires (its `exp`), read without checking the signature:
 * it only schedules a check, which verifies the token; a forged `exp` moves nothing past the bound.
 */
export function accessTokenExpiryMs(token: string): number | undefined {
  if (token.startsWith(API_KEY_PREFIX)) return undefined;
  const payload = token.split('.')[1];
  if (!payload) return undefined;
  try {
    const exp: unknown = (JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { exp?: unknown }).exp;
    return typeof exp === 'number' && Number.isFinite(exp) ? exp * 1000 : undefined;
  } catch {
    return undefined;
  }
}
