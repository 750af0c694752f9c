import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { JwtService } from '@nestjs/jwt';
import jwt from 'jsonwebtoken';
import { Strategy as JwtStrategy } from 'passport-jwt';
import { AppConfig } from '../../../config/index.js';
import { newId } from '../../../core/index.js';
import { authenticateToken, BOARD_STRATEGY, issueBoardToken, SESSION_RECHECK_STRATEGY, SESSION_STRATEGY } from '../../../platform/auth/index.js';
import { MemoryCounterStore } from '../../../platform/rate-limit/counter-store.js';
import { RateLimiter } from '../../../platform/rate-limit/index.js';
import type { LiveSession, SessionsRepository } from '../infrastructure/sessions.repository.js';
import { AccessTokens, jwtOptions } from './access-tokens.js';
import { SessionCheck } from './session-check.js';
import { BoardTokenStrategy, SessionJwtStrategy, SessionRecheckStrategy } from './session-strategies.js';

const SECRET = 's'.repeat(40);
const config = new AppConfig({ JWT_SECRET: SECRET, TOKEN_ENCRYPTION_KEY: 'k'.repeat(32), ACCESS_TOKEN_TTL_SECONDS: '900' });
const userId = newId('user');
const sessionId = newId('ses');
const workspaceId = newId('ws');

/** One live session; counts its reads. */
class FakeSessions {
  reads = 0;
  async findLive(): Promise<LiveSession> {
    this.reads += 1;
    const createdAt = new Date(0);
    return {
      expiresAt: new Date(Date.now() + 86_400_000),
      memberRole: 'owner',
      workspaceRequiresMfa: false,
      account: {
        user: { id: userId, workspaceId, email: 'a@b.test', displayName: 'A', status: 'active', role: 'user', locale: 'en', onboardingStep: 'done', mfaEnabled: false, signInAlerts: false, createdAt, emailVerifiedAt: createdAt },
        workspace: { id: workspaceId, name: 'W', plan: 'starter', creditsBalance: 0, createdAt },
      },
    };
  }
}

function sign(claims: Record<string, unknown>, options: jwt.SignOptions = {}, secret = SECRET): string {
  return jwt.sign({ sub: userId, sid: sessionId, wid: workspaceId, iss: 'persona-studio', aud: 'persona-studio-api', ...claims }, secret, { expiresIn: 60, ...options });
}

let sessions: FakeSessions;
let limiter: RateLimiter;

/** Requests counted so far in the workspace's window, counting none itself. */
async function counted(): Promise<number> {
  return (await limiter.hitWorkspace(workspaceId)).count - 1;
}

beforeEach(() => {
  sessions = new FakeSessions();
  limiter = new RateLimiter(config, new MemoryCounterStore());
  // Constructing a strategy registers it with passport under its name, as the module does at boot.
  const check = new SessionCheck(sessions as unknown as SessionsRepository, limiter);
  new SessionJwtStrategy(config, check);
  new SessionRecheckStrategy(config, check);
  new BoardTokenStrategy(config, check);
});

afterEach(() => {
  sessions.reads = 0;
});

describe('the session strategy (passport-jwt, then the session check)', () => {
  it('accepts a token AccessTokens issued, counting the request', async () => {
    const token = new AccessTokens(new JwtService(jwtOptions(config)), config).issue({ userId, workspaceId }, sessionId);
    const found = await authenticateToken(SESSION_STRATEGY, token);
    expect(found).toMatchObject({ hits: 1, caller: { kind: 'session', userId, workspaceId, sessionId, plan: 'starter' } });
    expect(sessions.reads).toBe(1);
  });

  it.each([
    ['expired', sign({}, { expiresIn: -10 })],
    ['another issuer', sign({ iss: 'other' })],
    ['another audience', sign({ aud: 'other' })],
    ['another secret', sign({}, {}, 'x'.repeat(40))],
    ['HS512 with the right secret', sign({}, { algorithm: 'HS512' })],
    ['HS384 with the right secret', sign({}, { algorithm: 'HS384' })],
    ['alg none', `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${sign({}).split('.')[1]}.`],
    ['a tampered payload', `${sign({}).split('.')[0]}.${Buffer.from(JSON.stringify({ sub: userId, sid: sessionId, wid: newId('ws'), iss: 'persona-studio', aud: 'persona-studio-api', exp: 9_999_999_999 })).toString('base64url')}.${sign({}).split('.')[2]}`],
    ['a subject that is not a user id', sign({ sub: 'admin' })],
    ['a workspace claim that is not a workspace id', sign({ wid: 'ws_../x' })],
    ['an API key shape', 'psk_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG'],
    ['garbage', 'not.a.jwt'],
  ])('refuses a token with %s, counting and reading nothing', async (_what, token) => {
    expect(await authenticateToken(SESSION_STRATEGY, token)).toBeNull();
    expect(sessions.reads).toBe(0);
    expect(await counted()).toBe(0);
  });

  it('verifies a token once; later requests with it check its expiry and still run the session check', async () => {
    // passport-jwt verifies through this static; its typings do not declare it.
    const verifier = jest.spyOn(JwtStrategy as unknown as { JwtVerifier: (...args: unknown[]) => void }, 'JwtVerifier');
    try {
      const token = sign({});
      expect(await authenticateToken(SESSION_STRATEGY, token)).toMatchObject({ hits: 1 });
      expect(await authenticateToken(SESSION_STRATEGY, token)).toMatchObject({ hits: 2, caller: { sessionId } });
      expect(verifier).toHaveBeenCalledTimes(1);
      // Any other text is verified on its own: a changed signature is refused.
      const forged = `${token.slice(0, -2)}${token.endsWith('AA') ? 'BB' : 'AA'}`;
      expect(await authenticateToken(SESSION_STRATEGY, forged)).toBeNull();
      expect(verifier).toHaveBeenCalledTimes(2);
    } finally {
      verifier.mockRestore();
    }
  });

  it('refuses a token it verified before once its exp has passed', async () => {
    const token = sign({}, { expiresIn: 60 });
    expect(await authenticateToken(SESSION_STRATEGY, token)).not.toBeNull();
    const clock = jest.spyOn(Date, 'now').mockReturnValue(Date.now() + 61_000);
    try {
      expect(await authenticateToken(SESSION_STRATEGY, token)).toBeNull();
    } finally {
      clock.mockRestore();
    }
  });

  it('still accepts a token from before the workspace claim, reading its session first', async () => {
    const legacy = sign({ wid: undefined });
    expect(await authenticateToken(SESSION_STRATEGY, legacy)).toMatchObject({ hits: 1, caller: { workspaceId } });
    expect(sessions.reads).toBe(1);
  });
});

describe('the recheck strategy (sockets held open)', () => {
  it('reads the session afresh each time and counts no request', async () => {
    const token = sign({});
    expect(await authenticateToken(SESSION_RECHECK_STRATEGY, token)).toEqual({ caller: expect.objectContaining({ workspaceId, sessionId }) });
    expect(await authenticateToken(SESSION_RECHECK_STRATEGY, token)).not.toBeNull();
    expect(sessions.reads).toBe(2);
    expect(await counted()).toBe(0);
  });

  it('refuses an expired or foreign token like the session strategy', async () => {
    expect(await authenticateToken(SESSION_RECHECK_STRATEGY, sign({}, { expiresIn: -10 }))).toBeNull();
    expect(await authenticateToken(SESSION_RECHECK_STRATEGY, sign({}, { algorithm: 'HS512' }))).toBeNull();
    expect(sessions.reads).toBe(0);
  });
});

describe('board-only tokens (the queue board cookie)', () => {
  const caller = { kind: 'session' as const, userId, workspaceId, sessionId, role: 'admin' as const, workspaceRole: 'owner' as const, plan: 'agency' as const, scopes: [] };
  const board = (ttlSeconds = 900) => issueBoardToken(caller, { jwtSecret: SECRET, issuer: config.jwtIssuer, ttlSeconds, nowSeconds: Math.floor(Date.now() / 1000) });

  it('opens the board, its session read afresh', async () => {
    expect(await authenticateToken(BOARD_STRATEGY, board())).toEqual({ caller: expect.objectContaining({ userId, sessionId }) });
    expect(sessions.reads).toBe(1);
  });

  it('never passes as an access token, and an access token never passes as a board token', async () => {
    const access = new AccessTokens(new JwtService(jwtOptions(config)), config).issue({ userId, workspaceId }, sessionId);
    expect(await authenticateToken(SESSION_STRATEGY, board())).toBeNull();
    expect(await authenticateToken(SESSION_RECHECK_STRATEGY, board())).toBeNull();
    expect(await authenticateToken(BOARD_STRATEGY, access)).toBeNull();
    // Signed with the JWT secret itself, the board audience is still not enough.
    expect(await authenticateToken(BOARD_STRATEGY, sign({ aud: 'persona-studio-queue-board' }))).toBeNull();
    expect(sessions.reads).toBe(0);
  });

  it('refuses an expired board token', async () => {
    expect(await authenticateToken(BOARD_STRATEGY, board(-10))).toBeNull();
  });
});
