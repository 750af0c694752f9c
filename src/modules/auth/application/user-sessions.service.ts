import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AppError, type Caller, type Page, type PageRequest } from '../../../core/index.js';
import { inTransaction } from '../../../platform/database/index.js';
import { RateLimiter } from '../../../platform/rate-limit/index.js';
import type { User } from '../domain/accounts.js';
import { deviceName, ipPrefix } from '../domain/devices.js';
import { SessionsRepository, type EndedSession } from '../infrastructure/sessions.repository.js';
import { SignInAudit } from './sign-in-audit.js';

/** A session as its user sees it: where from (named, never the full header or address), when, and whether it is this one. */
export interface SessionSummary {
  id: string;
  device: string;
  ipPrefix: string | null;
  workspaceId: string;
  createdAt: Date;
  lastUsedAt: Date;
  current: boolean;
}

const notFound = () => AppError.notFound('Session');

/**
 * A user's own sessions, in every workspace: the list, ending one, ending all but this one, and the
 * choice of an email on a sign-in from a new device. Ending a session is a logout: revoked and
 * audited in one transaction, then its workspace's access stamp moves, so its access and refresh
 * tokens fail at once and its sockets close.
 */
@Injectable()
export class UserSessionsService {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly sessions: SessionsRepository,
    private readonly signIns: SignInAudit,
    private readonly limiter: RateLimiter,
  ) {}

  async list(caller: Caller, page: PageRequest): Promise<Page<SessionSummary>> {
    const found = await this.sessions.listLive(caller.userId, page);
    return {
      ...found,
      items: found.items.map((s) => ({
        id: s.id,
        device: deviceName(s.userAgent),
        ipPrefix: ipPrefix(s.ip),
        workspaceId: s.workspaceId,
        createdAt: s.createdAt,
        lastUsedAt: s.lastUsedAt,
        current: s.id === caller.sessionId,
      })),
    };
  }

  /** Ends one of the caller's sessions; the caller's own is a plain logout. Another user's, unknown or ended: 404. */
  async end(caller: Caller, sessionId: string): Promise<void> {
    const current = sessionOf(caller);
    const isCurrent = sessionId === current;
    const ended = await inTransaction(this.ds, async (tx) => {
      const s = await this.sessions.revokeOwn(tx, caller.userId, sessionId, isCurrent ? 'logout' : 'revoked_by_user');
      if (!s) return null;
      const ref = { ...s, userId: caller.userId };
      await (isCurrent ? this.signIns.signedOut(tx, ref) : this.signIns.revoked(tx, ref, current));
      return s;
    });
    if (!ended) throw notFound();
    await this.moveStamps([ended]);
  }

  /** Ends every other session of the caller, in every workspace; answers how many ended. */
  async endOthers(caller: Caller): Promise<number> {
    const current = sessionOf(caller);
    const ended = await inTransaction(this.ds, async (tx) => {
      const all = await this.sessions.revokeAllBut(tx, caller.userId, current, 'revoked_by_user');
      for (const s of all) await this.signIns.revoked(tx, { ...s, userId: caller.userId }, current);
      return all;
    });
    await this.moveStamps(ended);
    return ended.length;
  }

  async setSignInAlerts(caller: Caller, on: boolean): Promise<User> {
    const user = await this.sessions.setSignInAlerts(caller.userId, on);
    if (!user) throw new AppError('unauthorized', 'The token is invalid, expired or revoked.');
    return user;
  }

  /** Once per workspace: every instance reads the ended sessions again, and their sockets close. */
  private async moveStamps(ended: readonly EndedSession[]): Promise<void> {
    for (const workspaceId of new Set(ended.map((s) => s.workspaceId))) await this.limiter.bumpAccessStamp(workspaceId);
  }
}

/** Product routes are reached with session tokens only, and each carries its session. */
function sessionOf(caller: Caller): string {
  if (!caller.sessionId) throw new AppError('session_required', 'This route needs a session token, not an API key.');
  return caller.sessionId;
}
