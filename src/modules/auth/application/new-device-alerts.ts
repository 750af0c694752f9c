import { Injectable } from '@nestjs/common';
import type { Tx } from '../../../platform/database/index.js';
import { Outbox } from '../../../platform/outbox/index.js';
import { fingerprintOf, isKnownDevice } from '../domain/devices.js';
import { SessionsRepository } from '../infrastructure/sessions.repository.js';
import type { ClientInfo } from './sessions.service.js';

/** How far back a device counts as known: one used in the last 90 days. */
export const KNOWN_DEVICE_DAYS = 90;
const DAY_MS = 86_400_000;

/** The session a sign-in started (the sign-in audit's `SessionRef`; not imported, since that file uses this one). */
interface StartedSession {
  sessionId: string;
  userId: string;
  workspaceId: string;
}

/**
 * The email on a sign-in from a new device, for users who asked for it. Recorded in the outbox in
 * the sign-in's own transaction, so a sign-in that fails to commit announces nothing. A device is
 * the parsed browser and OS plus the network (/24, /48) of the user's other sessions used in the
 * last 90 days; registration's first session is never announced (registration does not call this).
 */
@Injectable()
export class NewDeviceAlerts {
  constructor(
    private readonly sessions: SessionsRepository,
    private readonly outbox: Outbox,
  ) {}

  async signedIn(tx: Tx, s: StartedSession, client: ClientInfo, now: Date = new Date()): Promise<void> {
    const user = await this.sessions.alertSettings(tx, s.userId);
    if (!user?.signInAlerts) return;
    const current = fingerprintOf(client);
    const since = new Date(now.getTime() - KNOWN_DEVICE_DAYS * DAY_MS);
    const seen = (await this.sessions.clientsUsedSince(tx, s.userId, s.sessionId, since)).map(fingerprintOf);
    if (isKnownDevice(current, seen)) return;
    await this.outbox.record(tx, {
      type: 'account.new_sign_in',
      workspaceId: s.workspaceId,
      payload: { userId: s.userId, email: user.email, device: current.device, ipPrefix: current.ipPrefix, at: now.toISOString() },
    });
  }
}
