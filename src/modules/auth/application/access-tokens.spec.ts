import { describe, expect, it } from '@jest/globals';
import { JwtService } from '@nestjs/jwt';
import jwt from 'jsonwebtoken';
import { AppConfig } from '../../../config/index.js';
import { newId } from '../../../core/index.js';
import { AccessTokens, jwtOptions } from './access-tokens.js';

const SECRET = 's'.repeat(40);
const config = new AppConfig({ JWT_SECRET: SECRET, TOKEN_ENCRYPTION_KEY: 'k'.repeat(32), ACCESS_TOKEN_TTL_SECONDS: '900' });
const tokens = new AccessTokens(new JwtService(jwtOptions(config)), config);
const userId = newId('user');
const sessionId = newId('ses');
const workspaceId = newId('ws');

function sign(claims: Record<string, unknown>, options: jwt.SignOptions = {}, secret = SECRET): string {
  return jwt.sign({ sub: userId, sid: sessionId, iss: 'persona-studio', aud: 'persona-studio-api', ...claims }, secret, { expiresIn: 60, ...options });
}

describe('AccessTokens', () => {
  it('issues HS256 tokens with iss, aud, exp, sub, sid and wid, and reads them back', () => {
    const token = tokens.issue({ userId, workspaceId }, sessionId);
    const decoded = jwt.decode(token, { complete: true })!;
    expect(decoded.header.alg).toBe('HS256');
    const p = decoded.payload as jwt.JwtPayload;
    expect(p).toMatchObject({ sub: userId, sid: sessionId, wid: workspaceId, iss: 'persona-studio', aud: 'persona-studio-api' });
    expect(p.exp! - p.iat!).toBe(900);
    expect(tokens.verify(token)).toEqual({ userId, sessionId, workspaceId });
  });

  it('still reads a token issued before the workspace claim, without a workspace', () => {
    expect(tokens.verify(sign({}))).toEqual({ userId, sessionId });
  });

  it.each([
    ['expired', sign({}, { expiresIn: -10 })],
    ['another issuer', sign({ iss: 'other' })],
    ['another audience', sign({ aud: 'other' })],
    ['another secret', sign({}, {}, 'x'.repeat(40))],
    ['HS512 with the right secret', sign({}, { algorithm: 'HS512' })],
    ['alg none', `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${sign({}).split('.')[1]}.`],
    ['a subject that is not a user id', sign({ sub: 'admin' })],
    ['no session id', sign({ sid: undefined })],
    ['a workspace claim that is not a workspace id', sign({ wid: 'ws_../x' })],
    ['garbage', 'not.a.jwt'],
  ])('refuses a token with %s', (_what, token) => {
    expect(tokens.verify(token)).toBeNull();
  });
});

describe('AccessTokens, a token checked before', () => {
  it('is still refused once it expires', () => {
    const token = sign({}, { expiresIn: 60 });
    const now = Date.now();
    expect(tokens.verify(token, now)).toEqual({ userId, sessionId });
    expect(tokens.verify(token, now + 30_000)).toEqual({ userId, sessionId });
    expect(tokens.verify(token, now + 61_000)).toBeNull();
  });

  it('does not make a tampered copy acceptable', () => {
    const token = sign({});
    expect(tokens.verify(token)).not.toBeNull();
    expect(tokens.verify(`${token.slice(0, -2)}xx`)).toBeNull();
  });
});
