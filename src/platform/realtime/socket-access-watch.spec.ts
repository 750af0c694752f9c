import { beforeAll, describe, expect, it } from '@jest/globals';
import { Logger } from '@nestjs/common';
import type { Caller } from '../../core/index.js';
import { accessTokenExpiryMs, SocketAccessWatch } from './socket-access-watch.js';
import type { SocketSession } from './socket-session.js';

/** The part of a session the watch uses: its caller and token, and what `confirm` was told. */
class FakeSession {
  isOpen = true;
  confirmed: Array<Caller | null> = [];
  constructor(
    readonly token: string,
    readonly caller: Caller,
  ) {}
  confirm(caller: Caller | null): void {
    this.confirmed.push(caller);
    if (!caller) this.isOpen = false;
  }
}

const callerOf = (workspaceId: string): Caller => ({ kind: 'api_key', userId: 'user_1', workspaceId, role: 'user', workspaceRole: 'owner', plan: 'agency', scopes: ['content:read'] });
const jwtExpiringAt = (expSeconds: number) =>
  `h.${Buffer.from(JSON.stringify({ sub: 'user_1', exp: expSeconds })).toString('base64url')}.sig`;

function setup(recheckMs = 30_000) {
  let now = 1_000_000;
  const stamps = new Map<string, string>();
  const valid = new Map<string, Caller>();
  const checked: string[] = [];
  let failing = false;
  const watch = new SocketAccessWatch({
    readStamps: async (ids) => new Map(ids.map((id) => [id, stamps.get(id) ?? '0'])),
    recheck: async (token) => {
      checked.push(token);
      if (failing) throw new Error('database down');
      return valid.get(token) ?? null;
    },
    recheckMs,
    now: () => now,
  });
  const open = async (token: string, workspaceId: string) => {
    const session = new FakeSession(token, callerOf(workspaceId));
    valid.set(token, session.caller);
    await watch.add(session as unknown as SocketSession);
    return session;
  };
  return {
    watch, stamps, valid, checked, open,
    advance: (ms: number) => (now += ms),
    fail: (on: boolean) => (failing = on),
  };
}

describe('SocketAccessWatch', () => {
  beforeAll(() => Logger.overrideLogger(false));

  it('checks nothing while the stamps stay put and no check is due', async () => {
    const t = setup();
    await t.open('psk_a', 'ws_A');
    for (let i = 0; i < 5; i++) {
      t.advance(1_000);
      await t.watch.tick();
    }
    expect(t.checked).toEqual([]);
  });

  it('checks the sockets of a workspace whose stamp moved, once per credential, and closes the ended ones', async () => {
    const t = setup();
    const a1 = await t.open('psk_a', 'ws_A');
    const a2 = await t.open('psk_a', 'ws_A');
    const a3 = await t.open('psk_other', 'ws_A');
    const b = await t.open('psk_b', 'ws_B');
    t.valid.delete('psk_a');
    t.stamps.set('ws_A', 'moved');
    await t.watch.tick();
    expect(t.checked.sort()).toEqual(['psk_a', 'psk_other']);
    expect([a1.isOpen, a2.isOpen, a3.isOpen, b.isOpen]).toEqual([false, false, true, true]);
    expect(b.confirmed).toEqual([]);
    expect(t.watch.size).toBe(2);
    // The stamp read before the check is the socket's now: nothing more until it moves again.
    await t.watch.tick();
    expect(t.checked).toHaveLength(2);
  });

  it('checks every socket again when the bound has passed, even with no stamp moved', async () => {
    const t = setup(5_000);
    const s = await t.open('psk_a', 'ws_A');
    t.advance(4_999);
    await t.watch.tick();
    expect(t.checked).toEqual([]);
    t.advance(1);
    t.valid.delete('psk_a');
    await t.watch.tick();
    expect(t.checked).toEqual(['psk_a']);
    expect(s.isOpen).toBe(false);
  });

  it('checks a session token when it expires, before the bound', async () => {
    const t = setup(30_000);
    const token = jwtExpiringAt((1_000_000 + 3_000) / 1000);
    expect(accessTokenExpiryMs(token)).toBe(1_003_000);
    await t.open(token, 'ws_A');
    t.advance(2_999);
    await t.watch.tick();
    expect(t.checked).toEqual([]);
    t.advance(1);
    await t.watch.tick();
    expect(t.checked).toEqual([token]);
  });

  it('keeps a socket open when the check itself fails, and tries it again later', async () => {
    const t = setup();
    const s = await t.open('psk_a', 'ws_A');
    t.fail(true);
    t.stamps.set('ws_A', 'moved');
    await t.watch.tick();
    expect(s.isOpen).toBe(true);
    expect(s.confirmed).toEqual([]);
    t.fail(false);
    t.advance(1_000);
    await t.watch.tick();
    expect(t.checked).toEqual(['psk_a']);
    t.advance(4_000);
    await t.watch.tick();
    expect(s.confirmed).toHaveLength(1);
    expect(t.checked).toEqual(['psk_a', 'psk_a']);
  });

  it('forgets a socket once it is removed', async () => {
    const t = setup();
    const s = await t.open('psk_a', 'ws_A');
    t.watch.remove(s as unknown as SocketSession);
    t.stamps.set('ws_A', 'moved');
    await t.watch.tick();
    expect(t.checked).toEqual([]);
  });

  it('reads no expiry from an API key or a malformed token', () => {
    expect(accessTokenExpiryMs('psk_abc.def.ghi')).toBeUndefined();
    expect(accessTokenExpiryMs('not-a-jwt')).toBeUndefined();
    expect(accessTokenExpiryMs('a.bnVsbA.c')).toBeUndefined();
  });
});
