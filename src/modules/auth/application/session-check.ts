import { Injectable } from '@nestjs/common';
import { SCOPES, type Caller } from '../../../core/index.js';
import type { Authenticated } from '../../../platform/auth/index.js';
import { RateLimiter } from '../../../platform/rate-limit/index.js';
import type { Account } from '../domain/accounts.js';
import { SessionsRepository, type LiveSession } from '../infrastructure/sessions.repository.js';
import type { AccessClaims } from './access-tokens.js';

/**
 * How long a session check's answer may be reused while the workspace's access stamp stays put: the
 * bound on how late a change made outside the API (a hand edit in SQL, the admin CLI without Redis)
 * is seen. Changes made through the API move the stamp and are seen on the next request.
 */
export const SESSION_RECHECK_MS = 30_000;

/** Sessions remembered at most per process; the oldest is forgotten first. */
const REMEMBERED_SESSIONS = 10_000;

interface Remembered {
  caller: Caller;
  stamp: string;
  sessionExpiresAtMs: number;
  readAtMs: number;
}

/**
 * What the session strategies do once passport-jwt has verified a token: check that its session is
 * live (not revoked, not expired, user active), so a logout, a reused refresh token or a plan
 * change takes effect at once rather than when the token expires.
 *
 * The request's rate-limit round trip also reads the workspace's access stamp, which every such
 * change moves after it commits. While the stamp is the one read with the session, the session's
 * answer is reused and the request costs no database query; once it moves, the next request reads
 * the session again. With Redis the stamp is shared, so a logout on one instance ends the token on
 * all of them. The stamp is read before the session, so an answer is never remembered under a stamp
 * newer than the rows it came from.
 */
@Injectable()
export class SessionCheck {
  /** What the session check read, per caller object: it lives exactly as long as the request's caller. */
  private readonly accounts = new WeakMap<Caller, Account>();
  private readonly remembered = new Map<string, Remembered>();

  constructor(
    private readonly sessions: SessionsRepository,
    private readonly limiter: RateLimiter,
  ) {}

  /**
   * The caller of a verified token, its request counted against the workspace's window (`hits`),
   * or null when its session has ended. Counted even then: the count is what told it to look.
   */
  async authenticate(claims: AccessClaims, nowMs: number = Date.now()): Promise<Authenticated | null> {
    if (!claims.workspaceId) return this.authenticateUnstamped(claims);

    const { count: hits, stamp } = await this.limiter.hitWorkspace(claims.workspaceId);
    const known = this.remembered.get(claims.sessionId);
    if (known && isReusable(known, claims, stamp, nowMs)) {
      // A copy: nothing a request does to its caller reaches the next one, and it has no account
      // of its own, so GET /auth/me reads the user and workspace afresh.
      return { caller: { ...known.caller }, hits };
    }
    const live = await this.sessions.findLive(claims.sessionId, claims.userId);
    if (!live || live.account.workspace.id !== claims.workspaceId) {
      this.remembered.delete(claims.sessionId);
      return null;
    }
    const caller = this.callerOf(live, claims.sessionId);
    this.remember(claims.sessionId, { caller: { ...caller }, stamp, sessionExpiresAtMs: live.expiresAt.getTime(), readAtMs: nowMs });
    return { caller, hits };
  }

  /**
   * The caller of a verified token with its session read afresh, or null; counts no request. For
   * credentials held open (sockets), checked again when their workspace's access stamp moves and
   * periodically.
   */
  async recheck(claims: AccessClaims): Promise<Caller | null> {
    const live = await this.sessions.findLive(claims.sessionId, claims.userId);
    if (!live || (claims.workspaceId !== undefined && live.account.workspace.id !== claims.workspaceId)) return null;
    return this.callerOf(live, claims.sessionId);
  }

  /** The user and workspace as this request's session check read them, so GET /auth/me needs no second query. */
  accountOf(caller: Caller): Account | undefined {
    return this.accounts.get(caller);
  }

  /** A token from before the `wid` claim: the session is read first, and its answer not remembered. */
  private async authenticateUnstamped(claims: AccessClaims): Promise<Authenticated | null> {
    const live = await this.sessions.findLive(claims.sessionId, claims.userId);
    if (!live) return null;
    const caller = this.callerOf(live, claims.sessionId);
    return { caller, hits: (await this.limiter.hitWorkspace(caller.workspaceId)).count };
  }

  private callerOf({ account, memberRole, workspaceRequiresMfa }: LiveSession, sessionId: string): Caller {
    const caller: Caller = {
      kind: 'session',
      userId: account.user.id,
      workspaceId: account.workspace.id,
      role: account.user.role,
      workspaceRole: memberRole,
      plan: account.workspace.plan,
      scopes: SCOPES,
      sessionId,
      emailVerified: account.user.emailVerifiedAt !== null,
      ...(workspaceRequiresMfa && !account.user.mfaEnabled ? { mfaRequirementUnmet: true } : {}),
    };
    this.accounts.set(caller, account);
    return caller;
  }

  private remember(sessionId: string, entry: Remembered): void {
    this.remembered.delete(sessionId);
    if (this.remembered.size >= REMEMBERED_SESSIONS) {
      const oldest = this.remembered.keys().next();
      if (!oldest.done) this.remembered.delete(oldest.value);
    }
    this.remembered.set(sessionId, entry);
  }
}

function isReusable(known: Remembered, claims: AccessClaims, stamp: string, nowMs: number): boolean {
  return (
    known.stamp === stamp &&
    known.caller.userId === claims.userId &&
    known.caller.workspaceId === claims.workspaceId &&
    known.sessionExpiresAtMs > nowMs &&
    nowMs - known.readAtMs < SESSION_RECHECK_MS
  );
}
