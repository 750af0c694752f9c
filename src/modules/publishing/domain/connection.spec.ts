import { describe, expect, it } from '@jest/globals';
import { needsRefresh, REFRESH_MARGIN_MS, visibleStatus, type ConnectionStatus } from './connection.js';

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
