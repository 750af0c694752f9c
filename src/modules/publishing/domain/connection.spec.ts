import { describe, expect, it } from '@jest/globals';
import { canPostWith, needsRefresh, REFRESH_MARGIN_MS, statusFor, visibleStatus, type Connection, type ConnectionStatus } from './connection.js';

const NOW = new Date('2026-06-01T12:00:00.000Z');
const plus = (ms: number) => new Date(NOW.getTime() + ms);

describe('needsRefresh', () => {
  it('refreshes from 5 minutes before expiry on', () => {
    expect(REFRESH_MARGIN_MS).toBe(5 * 60_000);
    expect(needsRefresh({ updatedAt: plus(-3600_000), expiresAt: plus(5 * 60_000 + 1) }, NOW)).toBe(false);
    expect(needsRefresh({ updatedAt: plus(-3600_000), expiresAt: plus(5 * 60_000) }, NOW)).toBe(true);
    expect(needsRefresh({ updatedAt: plus(-3600_000), expiresAt: plus(60_000) }, NOW)).toBe(true);
    expect(needsRefresh({ updatedAt: plus(-3600_000), expiresAt: NOW }, NOW)).toBe(true);
    expect(needsRefresh({ updatedAt: plus(-3600_000), expiresAt: plus(-3600_000) }, NOW)).toBe(true);
    expect(needsRefresh({ updatedAt: plus(-3600_000), expiresAt: plus(3600_000) }, NOW)).toBe(false);
  });

  it('waits for half the life of a token that lives less than ten minutes', () => {
    // Stored 30 s ago, expires in 90 s: a two-minute token, refreshed from 60 s before expiry.
    expect(needsRefresh({ updatedAt: plus(-30_000), expiresAt: plus(90_000) }, NOW)).toBe(false);
    expect(needsRefresh({ updatedAt: plus(-60_000), expiresAt: plus(60_000) }, NOW)).toBe(true);
    // Stored long ago (the life looks long): the five-minute margin applies.
    expect(needsRefresh({ updatedAt: plus(-86_400_000), expiresAt: plus(4 * 60_000) }, NOW)).toBe(true);
  });

  it('never refreshes a token without expiry', () => {
    expect(needsRefresh({ updatedAt: plus(-3600_000), expiresAt: null }, NOW)).toBe(false);
  });
});

describe('visibleStatus', () => {
  it('shows a lapsed connected token without a refresh token as expired', () => {
    expect(visibleStatus({ status: 'connected', expiresAt: plus(-1), refreshToken: null }, NOW)).toBe('expired');
    expect(visibleStatus({ status: 'connected', expiresAt: NOW, refreshToken: null }, NOW)).toBe('expired');
  });

  it('keeps connected while the token is valid, has no expiry, or can be refreshed', () => {
    expect(visibleStatus({ status: 'connected', expiresAt: plus(1), refreshToken: null }, NOW)).toBe('connected');
    expect(visibleStatus({ status: 'connected', expiresAt: null, refreshToken: null }, NOW)).toBe('connected');
    expect(visibleStatus({ status: 'connected', expiresAt: plus(-3600_000), refreshToken: 'r' }, NOW)).toBe('connected');
  });

  it('passes the other statuses through', () => {
    for (const status of ['expired', 'needs_reauth', 'disconnected'] as ConnectionStatus[]) {
      expect(visibleStatus({ status, expiresAt: plus(-1), refreshToken: null }, NOW)).toBe(status);
      expect(visibleStatus({ status, expiresAt: plus(3600_000), refreshToken: 'r' }, NOW)).toBe(status);
    }
  });
});

describe('canPostWith and statusFor', () => {
  const connection: Connection = {
    id: 'int_1', workspaceId: 'ws_1', platform: 'instagram', mode: 'sandbox', status: 'connected', accountId: 'a', accountName: 'A',
    accessToken: 'at', refreshToken: 'rt', expiresAt: plus(3600_000), scopes: [], defaultBoardId: null, connectedAt: NOW, updatedAt: NOW,
  };

  it('posts on a connection made in the mode the platform runs in', () => {
    expect(canPostWith(connection, 'sandbox', NOW)).toBe(true);
    expect(statusFor(connection, 'sandbox', NOW)).toBe('connected');
    // Expired, but renewable when the post goes out.
    expect(canPostWith({ ...connection, expiresAt: plus(-1000) }, 'sandbox', NOW)).toBe(true);
  });

  it('does not post without a connection, on a removed, refused or lapsed one, or one made in the other mode', () => {
    expect(canPostWith(null, 'sandbox', NOW)).toBe(false);
    expect(statusFor(null, 'live', NOW)).toBe('disconnected');
    expect(canPostWith({ ...connection, status: 'disconnected', accessToken: null, refreshToken: null }, 'sandbox', NOW)).toBe(false);
    expect(canPostWith({ ...connection, status: 'needs_reauth' }, 'sandbox', NOW)).toBe(false);
    expect(canPostWith({ ...connection, expiresAt: plus(-1000), refreshToken: null }, 'sandbox', NOW)).toBe(false);
    expect(canPostWith(connection, 'live', NOW)).toBe(false);
    expect(statusFor(connection, 'live', NOW)).toBe('needs_reauth');
    expect(statusFor({ ...connection, status: 'disconnected' }, 'live', NOW)).toBe('disconnected');
  });
});
