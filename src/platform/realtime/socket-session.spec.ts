import { afterEach, beforeAll, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { EventEmitter } from 'node:events';
import { Logger } from '@nestjs/common';
import type { Caller } from '../../core/index.js';
import { AUTH_TIMEOUT_MS, FORBIDDEN_CLOSE, SocketSession, UNAUTHORIZED_CLOSE, type SessionHooks } from './socket-session.js';

class FakeSocket extends EventEmitter {
  readyState = 1;
  readonly sent: Array<Record<string, unknown>> = [];
  closedWith?: { code?: number; reason?: string };
  terminated = false;
  pings = 0;
  send(data: string): void {
    this.sent.push(JSON.parse(data));
  }
  close(code?: number, reason?: string): void {
    this.closedWith = { code, reason };
    this.readyState = 3;
    this.emit('close', code, reason);
  }
  terminate(): void {
    this.terminated = true;
  }
  ping(): void {
    this.pings += 1;
  }
  receive(text: string): void {
    this.emit('message', Buffer.from(text), false);
  }
}

const alice: Caller = { kind: 'session', userId: 'user_A', workspaceId: 'ws_A', role: 'user', workspaceRole: 'owner', plan: 'starter', scopes: [] };
const readKey: Caller = { kind: 'api_key', userId: 'user_K', workspaceId: 'ws_A', role: 'user', workspaceRole: 'owner', plan: 'agency', scopes: ['content:read'], apiKeyId: 'key_R' };
const flush = () => new Promise((r) => setImmediate(r));

describe('SocketSession', () => {
  let socket: FakeSocket;
  let opened: SocketSession[];
  let closed: SocketSession[];
  let authenticate: jest.Mock<SessionHooks['authenticate']>;
  let session: SocketSession;

  beforeAll(() => Logger.overrideLogger(false));
  beforeEach(() => {
    socket = new FakeSocket();
    opened = [];
    closed = [];
    authenticate = jest.fn<SessionHooks['authenticate']>(async (token) => (token === 'good-token' ? alice : null));
    session = new SocketSession(socket, { authenticate, opened: (s) => opened.push(s), closed: (s) => closed.push(s) }, 1000);
    session.start();
  });
  afterEach(() => {
    jest.useRealTimers();
  });

  const expectRejected = () => {
    expect(socket.sent).toEqual([{ type: 'auth.error', code: 'unauthorized' }]);
    expect(socket.closedWith).toEqual({ code: UNAUTHORIZED_CLOSE, reason: 'unauthorized' });
    expect(opened).toEqual([]);
    expect(closed).toEqual([session]);
  };

  it('answers auth.ok with the user id for a valid token and opens the session', async () => {
    socket.receive(JSON.stringify({ type: 'auth', token: 'good-token' }));
    await flush();
    expect(authenticate).toHaveBeenCalledWith('good-token');
    expect(socket.sent).toEqual([{ type: 'auth.ok', user_id: 'user_A' }]);
    expect(opened).toEqual([session]);
    expect(session.caller?.workspaceId).toBe('ws_A');
    expect(socket.closedWith).toBeUndefined();
  });

  it('rejects an unknown token with auth.error and close code 4401', async () => {
    socket.receive(JSON.stringify({ type: 'auth', token: 'bad-token' }));
    await flush();
    expectRejected();
  });

  it.each([
    ['a first message of another type', JSON.stringify({ type: 'ping' })],
    ['invalid JSON', '{"type": "auth", "token":'],
    ['an auth message without a token', JSON.stringify({ type: 'auth' })],
    ['an auth message with an empty token', JSON.stringify({ type: 'auth', token: '  ' })],
    ['a JSON array', JSON.stringify([{ type: 'auth', token: 'good-token' }])],
  ])('closes 4401 for %s, without asking the authenticator', async (_what, text) => {
    socket.receive(text);
    await flush();
    expect(authenticate).not.toHaveBeenCalled();
    expectRejected();
  });

  it('closes 4401 when no message comes within the time limit', () => {
    jest.useFakeTimers();
    const s = new FakeSocket();
    const timed = new SocketSession(s, { authenticate, opened: () => undefined, closed: () => undefined });
    timed.start();
    jest.advanceTimersByTime(AUTH_TIMEOUT_MS - 1);
    expect(s.closedWith).toBeUndefined();
    jest.advanceTimersByTime(1);
    expect(s.closedWith).toEqual({ code: UNAUTHORIZED_CLOSE, reason: 'unauthorized' });
    expect(AUTH_TIMEOUT_MS).toBe(10_000);
  });

  it('does not time out once authenticated', async () => {
    jest.useFakeTimers({ doNotFake: ['setImmediate'] });
    const s = new FakeSocket();
    const timed = new SocketSession(s, { authenticate, opened: () => undefined, closed: () => undefined });
    timed.start();
    s.receive(JSON.stringify({ type: 'auth', token: 'good-token' }));
    await flush();
    jest.advanceTimersByTime(AUTH_TIMEOUT_MS * 2);
    expect(s.closedWith).toBeUndefined();
    expect(timed.isOpen).toBe(true);
  });

  it('answers ping with pong once open and ignores other messages', async () => {
    socket.receive(JSON.stringify({ type: 'auth', token: 'good-token' }));
    await flush();
    socket.receive(JSON.stringify({ type: 'ping' }));
    socket.receive('not json');
    socket.receive(JSON.stringify({ type: 'auth', token: 'bad-token' }));
    await flush();
    expect(socket.sent).toEqual([{ type: 'auth.ok', user_id: 'user_A' }, { type: 'pong' }]);
    expect(authenticate).toHaveBeenCalledTimes(1);
    expect(socket.closedWith).toBeUndefined();
  });

  it('closes 1011 (not 4401) when the authenticator itself fails', async () => {
    authenticate.mockRejectedValueOnce(new Error('database down'));
    socket.receive(JSON.stringify({ type: 'auth', token: 'good-token' }));
    await flush();
    expect(socket.sent).toEqual([]);
    expect(socket.closedWith).toEqual({ code: 1011, reason: 'internal_error' });
  });

  it('does not open a socket that closed while its token was being checked', async () => {
    let resolve!: (c: Caller | null) => void;
    authenticate.mockReturnValueOnce(new Promise((r) => (resolve = r)));
    socket.receive(JSON.stringify({ type: 'auth', token: 'good-token' }));
    socket.close(1000, 'bye');
    resolve(alice);
    await flush();
    expect(opened).toEqual([]);
    expect(socket.sent).toEqual([]);
  });

  it('drops an open socket that stops answering pings', async () => {
    socket.receive(JSON.stringify({ type: 'auth', token: 'good-token' }));
    await flush();
    session.heartbeat();
    expect(socket.pings).toBe(1);
    socket.emit('pong');
    session.heartbeat();
    expect(socket.terminated).toBe(false);
    session.heartbeat();
    expect(socket.terminated).toBe(true);
  });

  describe('with an API key', () => {
    const keyed = (caller: Caller) => {
      const s = new FakeSocket();
      const opens: SocketSession[] = [];
      const ks = new SocketSession(s, { authenticate: async () => caller, opened: (x) => opens.push(x), closed: () => undefined }, 1000);
      ks.start();
      s.receive(JSON.stringify({ type: 'auth', token: 'psk_key' }));
      return { s, ks, opens };
    };

    it.each<[string, Caller, string]>([
      ['scoped only characters:read', { ...readKey, scopes: ['characters:read'] }, 'insufficient_scope'],
      ['of a workspace without API access', { ...readKey, plan: 'starter' }, 'plan_required'],
    ])('refuses a key %s with auth.error and close code 4403', async (_what, caller, code) => {
      const { s, opens } = keyed(caller);
      await flush();
      expect(s.sent).toEqual([{ type: 'auth.error', code }]);
      expect(s.closedWith).toEqual({ code: FORBIDDEN_CLOSE, reason: code });
      expect(opens).toEqual([]);
    });

    it('delivers only the events its scopes can read', async () => {
      const { s, ks } = keyed(readKey);
      await flush();
      ks.deliver('content.updated', '{"type":"content.updated"}');
      ks.deliver('post.updated', '{"type":"post.updated"}');
      ks.deliver('job.completed', '{"type":"job.completed"}');
      expect(s.sent.map((m) => m.type)).toEqual(['auth.ok', 'content.updated', 'job.completed']);
    });

    it('closes 4401 when a check finds the workspace lost API access, and delivers nothing after', async () => {
      const { s, ks } = keyed(readKey);
      await flush();
      ks.confirm({ ...readKey, plan: 'pro' });
      ks.deliver('content.updated', '{"type":"content.updated"}');
      expect(s.sent.slice(1)).toEqual([{ type: 'auth.error', code: 'plan_required' }]);
      expect(s.closedWith).toEqual({ code: UNAUTHORIZED_CLOSE, reason: 'plan_required' });
    });
  });

  describe('checked again while open', () => {
    const open = async () => {
      socket.receive(JSON.stringify({ type: 'auth', token: 'good-token' }));
      await flush();
    };

    it('stays open and keeps the token when the credential is still valid, taking its new plan', async () => {
      await open();
      expect(session.token).toBe('good-token');
      session.confirm({ ...alice, plan: 'pro' });
      expect(session.isOpen).toBe(true);
      expect(session.caller?.plan).toBe('pro');
      session.deliver('job.progress', '{"type":"job.progress"}');
      expect(socket.sent.map((m) => m.type)).toEqual(['auth.ok', 'job.progress']);
    });

    it('closes 4401 with auth.error once the credential is gone, and delivers nothing more', async () => {
      await open();
      session.confirm(null);
      session.deliver('job.progress', '{"type":"job.progress"}');
      session.confirm(alice);
      expect(socket.sent).toEqual([{ type: 'auth.ok', user_id: 'user_A' }, { type: 'auth.error', code: 'unauthorized' }]);
      expect(socket.closedWith).toEqual({ code: UNAUTHORIZED_CLOSE, reason: 'unauthorized' });
      expect(closed).toEqual([session]);
    });

    it('closes 4401 when the check answers another holder', async () => {
      await open();
      session.confirm({ ...alice, workspaceId: 'ws_B' });
      expect(socket.closedWith).toEqual({ code: UNAUTHORIZED_CLOSE, reason: 'unauthorized' });
    });
  });
});
