import { describe, expect, it } from '@jest/globals';
import { loggablePath, REDACTED_SEGMENT, redactPath } from './path-redaction.js';

const TOKEN = `pinv_${'aB3_-x'.repeat(7)}z`;

describe('redactPath', () => {
  it('logs a secret path parameter of a matched route by its name', () => {
    const req = { path: `/api/v1/invitations/${TOKEN}/accept`, route: { path: '/api/v1/invitations/:idOrToken/accept' }, params: { idOrToken: TOKEN } };
    expect(redactPath(req)).toBe('/api/v1/invitations/:idOrToken/accept');
  });

  it.each(['token', 'resetToken', 'TOKEN', 'clientSecret'])('treats a parameter named %s as secret, whatever its value', (name) => {
    const req = { path: '/api/v1/things/short/go', route: { path: `/api/v1/things/:${name}/go` }, params: { [name]: 'short' } };
    expect(redactPath(req)).toBe(`/api/v1/things/:${name}/go`);
  });

  it('matches the value as the client encoded it', () => {
    const req = { path: '/api/v1/invitations/a%2Fb%20c/accept', route: { path: '/api/v1/invitations/:token/accept' }, params: { token: 'a/b c' } };
    expect(redactPath(req)).toBe('/api/v1/invitations/:token/accept');
  });

  it('keeps other parameters of a matched route, even long ones', () => {
    const long = 'x'.repeat(40);
    const req = { path: `/api/v1/organizations/ws_01ARZ3NDEKTSV4RRFFQ69G5FAV/things/${long}`, route: { path: '/api/v1/organizations/:id/things/:name' }, params: { id: 'ws_01ARZ3NDEKTSV4RRFFQ69G5FAV', name: long } };
    expect(redactPath(req)).toBe(req.path);
  });

  it('on a path no route matched, redacts any segment shaped like an issued secret', () => {
    expect(redactPath({ path: `/api/v1/invitations/${TOKEN}/acept` })).toBe(`/api/v1/invitations/${REDACTED_SEGMENT}/acept`);
    expect(redactPath({ path: `/api/v1/x/${'A'.repeat(43)}` })).toBe(`/api/v1/x/${REDACTED_SEGMENT}`);
  });

  it("treats Nest's catch-all 404 route as no route", () => {
    const req = { path: `/api/v1/nope/${TOKEN}`, route: { path: '/api/v1/*path' }, params: { path: ['nope', TOKEN] } };
    expect(redactPath(req)).toBe(`/api/v1/nope/${REDACTED_SEGMENT}`);
  });

  it('keeps ids and ordinary segments readable on an unmatched path', () => {
    const path = '/api/v1/characters/voice_01ARZ3NDEKTSV4RRFFQ69G5FAV/inv_01ARZ3NDEKTSV4RRFFQ69G5FAV/short-name';
    expect(redactPath({ path })).toBe(path);
  });

  it('survives a malformed escape', () => {
    expect(redactPath({ path: '/api/v1/%E0%A4%A/x' })).toBe('/api/v1/%E0%A4%A/x');
  });

  it('logs the path as sent, API prefix included and query left out, whatever router answered', () => {
    expect(loggablePath({ originalUrl: `/api/v1/invitations/${TOKEN}/acept?x=1`, url: `/invitations/${TOKEN}/acept` })).toBe(`/api/v1/invitations/${REDACTED_SEGMENT}/acept`);
  });
});
