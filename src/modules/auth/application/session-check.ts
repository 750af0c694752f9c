import { Injectable } from '@nestjs/common';
import { SCOPES, type Caller } from '../../../core/index.js';
import { CredentialMemory, type Authenticated } from '../../../platform/auth/index.js';
import { RateLimiter } from '../../../platform/rate-limit/index.js';
import { SessionsRepository, type LiveSession } from '../infrastructure/sessions.repository.js';
import type { AccessClaims } from './access-tokens.js';

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
  /** Verified callers by session id. */
  private readonly remembered = new CredentialMemory<Caller>();

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
    const known = this.remembered.recall(claims.sessionId, stamp, nowMs);
    if (known && known.userId === claims.userId && known.workspaceId === claims.workspaceId) {
      // A copy: nothing a request does to its caller reaches the next one.
      return { caller: { ...known }, hits };
    }
    const live = await this.sessions.findLive(claims.sessionId, claims.userId);
    if (!live || live.account.workspace.id !== claims.workspaceId) {
      this.remembered.forget(claims.sessionId);
      return null;
    }
    const caller = this.callerOf(live, claims.sessionId);
    this.remembered.remember(claims.sessionId, { ...caller }, claims.workspaceId, stamp, live.expiresAt.getTime(), nowMs);
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
    return caller;
  }
}
