import { describe, expect, it } from '@jest/globals';
import type { NewOutboxEvent } from '../../../core/index.js';
import type { Tx } from '../../../platform/database/index.js';
import type { Outbox } from '../../../platform/outbox/index.js';
import type { SessionsRepository } from '../infrastructure/sessions.repository.js';
import { KNOWN_DEVICE_DAYS, NewDeviceAlerts } from './new-device-alerts.js';

const FIREFOX_MAC = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14.1; rv:121.0) Gecko/20100101 Firefox/121.0';
const SAFARI_IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1';
const tx = {} as Tx;
const now = new Date('2026-11-27T12:00:00.000Z');
const session = { sessionId: 'ses_current', userId: 'user_1', workspaceId: 'ws_1' };

interface PastSession {
  id: string;
  userAgent: string | null;
  ip: string | null;
  lastUsedAt: Date;
}

/** The users and sessions tables as the alert reads them, and the outbox it writes to. */
function setup(signInAlerts: boolean, past: PastSession[]) {
  const recorded: NewOutboxEvent[] = [];
  const reads: string[] = [];
  const sessions = {
    async alertSettings(t: Tx, userId: string) {
      expect(t).toBe(tx);
      reads.push('settings');
      return userId === session.userId ? { email: 'ada@example.com', signInAlerts } : null;
    },
    async clientsUsedSince(t: Tx, userId: string, except: string, since: Date) {
      expect(t).toBe(tx);
      reads.push('clients');
      return past.filter((s) => userId === session.userId && s.id !== except && s.lastUsedAt > since).map((s) => ({ userAgent: s.userAgent, ip: s.ip }));
    },
  };
  const outbox = {
    async record(t: Tx, event: NewOutboxEvent) {
      expect(t).toBe(tx);
      recorded.push(event);
      return 'evt_1';
    },
  };
  const alerts = new NewDeviceAlerts(sessions as unknown as SessionsRepository, outbox as unknown as Outbox);
  return { alerts, recorded, reads };
}

const daysAgo = (d: number) => new Date(now.getTime() - d * 86_400_000);

describe('NewDeviceAlerts', () => {
  it('records account.new_sign_in, with the device and network but no address or secret, for a new device when the user asked', async () => {
    const { alerts, recorded } = setup(true, [{ id: 'ses_old', userAgent: FIREFOX_MAC, ip: '203.0.113.7', lastUsedAt: daysAgo(1) }]);
    await alerts.signedIn(tx, session, { userAgent: SAFARI_IPHONE, ip: '198.51.100.23' }, now);
    expect(recorded).toEqual([
      {
        type: 'account.new_sign_in',
        workspaceId: 'ws_1',
        payload: { userId: 'user_1', email: 'ada@example.com', device: 'Safari on iOS', ipPrefix: '198.51.100.0/24', at: '2026-11-27T12:00:00.000Z' },
      },
    ]);
    expect(JSON.stringify(recorded)).not.toContain('198.51.100.23');
  });

  it('records nothing, and reads no sessions, when the user did not ask', async () => {
    const { alerts, recorded, reads } = setup(false, []);
    await alerts.signedIn(tx, session, { userAgent: SAFARI_IPHONE, ip: '198.51.100.23' }, now);
    expect(recorded).toEqual([]);
    expect(reads).toEqual(['settings']);
  });

  it('records nothing for a device seen in the last 90 days, ended sessions included, whatever its version or address in the network', async () => {
    const { alerts, recorded } = setup(true, [{ id: 'ses_old', userAgent: FIREFOX_MAC.replaceAll('121.0', '118.0'), ip: '203.0.113.7', lastUsedAt: daysAgo(KNOWN_DEVICE_DAYS - 1) }]);
    await alerts.signedIn(tx, session, { userAgent: FIREFOX_MAC, ip: '203.0.113.250' }, now);
    expect(recorded).toEqual([]);
  });

  it('treats a device last used more than 90 days ago, and the sign-in’s own session, as not seen', async () => {
    const stale = setup(true, [{ id: 'ses_old', userAgent: FIREFOX_MAC, ip: '203.0.113.7', lastUsedAt: daysAgo(KNOWN_DEVICE_DAYS + 1) }]);
    await stale.alerts.signedIn(tx, session, { userAgent: FIREFOX_MAC, ip: '203.0.113.7' }, now);
    expect(stale.recorded.map((e) => e.type)).toEqual(['account.new_sign_in']);

    const onlyItself = setup(true, [{ id: session.sessionId, userAgent: FIREFOX_MAC, ip: '203.0.113.7', lastUsedAt: now }]);
    await onlyItself.alerts.signedIn(tx, session, { userAgent: FIREFOX_MAC, ip: '203.0.113.7' }, now);
    expect(onlyItself.recorded).toHaveLength(1);
  });

  it('names an unknown client and a missing address plainly', async () => {
    const { alerts, recorded } = setup(true, []);
    await alerts.signedIn(tx, session, {}, now);
    expect(recorded[0].payload).toMatchObject({ device: 'Unknown device', ipPrefix: null });
  });
});
