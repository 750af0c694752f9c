import { describe, expect, it } from '@jest/globals';
import { CREDENTIAL_RECHECK_MS, CredentialMemory } from './credential-memory.js';

describe('CredentialMemory', () => {
  const now = 1_000_000;

  it('answers a remembered credential only under the stamp it was read under', () => {
    const memory = new CredentialMemory<string>();
    memory.remember('ses_1', 'caller', 'ws_1', '7', Infinity, now);
    expect(memory.recall('ses_1', '7', now + 1)).toBe('caller');
    expect(memory.recall('ses_1', '8', now + 1)).toBeUndefined();
    expect(memory.workspaceOf('ses_1')).toBe('ws_1');
  });

  it('never answers one remembered unconfirmed (read before any stamp), but still names its workspace', () => {
    const memory = new CredentialMemory<string>();
    memory.remember('key_hash', 'caller', 'ws_1', null, Infinity, now);
    expect(memory.recall('key_hash', '0', now)).toBeUndefined();
    expect(memory.workspaceOf('key_hash')).toBe('ws_1');
  });

  it(`answers nothing past the credential's own end or ${CREDENTIAL_RECHECK_MS / 1000} s after the read`, () => {
    const memory = new CredentialMemory<string>();
    memory.remember('a', 'caller', 'ws_1', '1', now + 5_000, now);
    expect(memory.recall('a', '1', now + 4_999)).toBe('caller');
    expect(memory.recall('a', '1', now + 5_000)).toBeUndefined();
    memory.remember('b', 'caller', 'ws_1', '1', Infinity, now);
    expect(memory.recall('b', '1', now + CREDENTIAL_RECHECK_MS - 1)).toBe('caller');
    expect(memory.recall('b', '1', now + CREDENTIAL_RECHECK_MS)).toBeUndefined();
  });

  it('forgets the oldest once full, and what it is told to forget', () => {
    const memory = new CredentialMemory<string>(2);
    memory.remember('a', 'A', 'ws', '1', Infinity, now);
    memory.remember('b', 'B', 'ws', '1', Infinity, now);
    memory.remember('a', 'A2', 'ws', '1', Infinity, now);
    memory.remember('c', 'C', 'ws', '1', Infinity, now);
    expect(memory.size).toBe(2);
    expect(memory.recall('b', '1', now)).toBeUndefined();
    expect(memory.recall('a', '1', now)).toBe('A2');
    memory.forget('a');
    expect(memory.recall('a', '1', now)).toBeUndefined();
    expect(memory.workspaceOf('a')).toBeUndefined();
  });
});
