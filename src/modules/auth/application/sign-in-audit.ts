import { Injectable, Logger } from '@nestjs/common';
import type { Tx } from '../../../platform/database/index.js';
import { AuditLog } from '../../audit/index.js';
import { NewDeviceAlerts } from './new-device-alerts.js';
import type { ClientInfo } from './sessions.service.js';

/** A session as the audit log names it: whose, in which workspace. */
export interface SessionRef {
  sessionId: string;
  userId: string;
  workspaceId: string;
}

/** Long enough to tell browsers apart, short enough that a hostile header cannot bloat the log. */
const USER_AGENT_KEPT = 200;

/**
 * Sign-in, sign-out and refresh-token reuse in the audit log of the session's workspace, each in
 * the transaction that starts or ends the session. A failed sign-in is not recorded there: writing
 * only for known emails would make them answer slower than unknown ones (telling an attacker which
 * emails have accounts), and anyone could fill a workspace's log with guesses. It is logged for the
 * operator instead, by user id when the email is known, never by the email typed (often a password).
 */
@Injectable()
export class SignInAudit {
  private readonly logger = new Logger('Auth');

  constructor(
    private readonly audit: AuditLog,
    private readonly newDevices: NewDeviceAlerts,
  ) {}

  /** A completed sign-in (password, or password and second factor): audited, and announced when from a new device and the user asked. */
  async signedIn(tx: Tx, s: SessionRef, client: ClientInfo): Promise<void> {
    await this.record(tx, s, 'auth.login', clientDetails(client));
    await this.newDevices.signedIn(tx, s, client);
  }

  signedOut(tx: Tx, s: SessionRef): Promise<void> {
    return this.record(tx, s, 'auth.logout', {});
  }

  /** The user ended this session from another one of theirs (the session list): a sign-out, saying from where. */
  revoked(tx: Tx, s: SessionRef, bySessionId: string): Promise<void> {
    return this.record(tx, s, 'auth.logout', { revoked_by_session_id: bySessionId });
  }

  /**
   * A spent refresh token came back: someone holds a copy, so the session was ended. The actor is
   * the account the token belongs to, whoever presented it.
   */
  reused(tx: Tx, s: SessionRef, client: ClientInfo): Promise<void> {
    this.logger.warn({ msg: 'refresh token reused; session ended', user_id: s.userId, workspace_id: s.workspaceId, session_id: s.sessionId, ip: client.ip ?? null });
    return this.record(tx, s, 'auth.refresh_token_reused', clientDetails(client));
  }

  refused(knownUserId: string | null): void {
    this.logger.log({ msg: 'sign-in refused', user_id: knownUserId });
  }

  private record(tx: Tx, s: SessionRef, action: 'auth.login' | 'auth.logout' | 'auth.refresh_token_reused', details: Record<string, unknown>): Promise<void> {
    return this.audit.record(tx, { workspaceId: s.workspaceId, actorUserId: s.userId, action, targetType: 'session', targetId: s.sessionId, details });
  }
}

function clientDetails(client: ClientInfo): Record<string, unknown> {
  return { ip: client.ip ?? null, user_agent: client.userAgent?.slice(0, USER_AGENT_KEPT) ?? null };
}
