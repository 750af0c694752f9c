import { KeyObject } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { JwtService } from '@nestjs/jwt';
import jwt from 'jsonwebtoken';
import { AppConfig } from '../../../config/index.js';
import { newId } from '../../../core/index.js';
import { AccessTokens, accessTokenVerification, claimsOf, jwtOptions } from './access-tokens.js';

const config = new AppConfig({ JWT_SECRET: 's'.repeat(40), TOKEN_ENCRYPTION_KEY: 'k'.repeat(32), ACCESS_TOKEN_TTL_SECONDS: '900' });
const tokens = new AccessTokens(new JwtService(jwtOptions(config)), config);
const userId = newId('user');
const sessionId = newId('ses');
const workspaceId = newId('ws');

describe('AccessTokens', () => {
  it('issues HS256 tokens with iss, aud, exp, sub, sid and wid', () => {
    const token = tokens.issue({ userId, workspaceId }, sessionId);
    const decoded = jwt.decode(token, { complete: true })!;
    expect(decoded.header.alg).toBe('HS256');
    const p = decoded.payload as jwt.JwtPayload;
    expect(p).toMatchObject({ sub: userId, sid: sessionId, wid: workspaceId, iss: 'persona-studio', aud: 'persona-studio-api' });
    expect(p.exp! - p.iat!).toBe(900);
  });

  it('hands passport-jwt the secret as a KeyObject, pinned to HS256 with our issuer and audience', () => {
    // A string or Buffer secret makes jsonwebtoken try to parse a public key on every verify.
    const verification = accessTokenVerification(config);
    expect(verification.secretOrKey).toBeInstanceOf(KeyObject);
    expect(verification).toMatchObject({ algorithms: ['HS256'], issuer: 'persona-studio', audience: 'persona-studio-api' });
  });
});

describe('claimsOf', () => {
  const exp = Math.floor(Date.now() / 1000) + 60;

  it('reads the user, session and workspace of a verified payload', () => {
    expect(claimsOf({ sub: userId, sid: sessionId, wid: workspaceId, exp })).toEqual({ userId, sessionId, workspaceId });
  });

  it('reads a payload from before the workspace claim, without a workspace', () => {
    expect(claimsOf({ sub: userId, sid: sessionId, exp })).toEqual({ userId, sessionId });
  });

  it.each([
    ['a subject that is not a user id', { sub: 'admin', sid: sessionId, exp }],
    ['no session id', { sub: userId, exp }],
    ['a workspace claim that is not a workspace id', { sub: userId, sid: sessionId, wid: 'ws_../x', exp }],
    ['no expiry', { sub: userId, sid: sessionId }],
    ['no object at all', 'payload'],
  ])('refuses %s', (_what, payload) => {
    expect(claimsOf(payload)).toBeNull();
  });
});
