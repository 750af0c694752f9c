import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { AppConfig } from '../../../config/index.js';
import { TokenCipher } from './token-cipher.js';

const dataDir = mkdtempSync(join(tmpdir(), 'token-cipher-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const cipherWith = (key: string) => new TokenCipher(new AppConfig({ TOKEN_ENCRYPTION_KEY: key, JWT_SECRET: 'y'.repeat(40), DATA_DIR: dataDir }));
const cipher = cipherWith('x'.repeat(40));
const TOKEN = 'EAAGm0PX4ZCpsBA-access.token/with+odd=chars';
const ROW = 'int_01HZX3Y8Q2';

/** Replaces the first character of part `index` of a sealed value with another base64url character. */
function tamper(sealed: string, index: number): string {
  const parts = sealed.split('.');
  parts[index] = (parts[index][0] === 'A' ? 'B' : 'A') + parts[index].slice(1);
  return parts.join('.');
}

describe('TokenCipher encrypt/decrypt', () => {
  it('round-trips, including empty and non-ASCII values', () => {
    expect(cipher.decrypt(cipher.encrypt(TOKEN, ROW), ROW)).toBe(TOKEN);
    expect(cipher.decrypt(cipher.encrypt('', ROW), ROW)).toBe('');
    expect(cipher.decrypt(cipher.encrypt('jeton-é-🔑', ROW), ROW)).toBe('jeton-é-🔑');
  });

  it('stores version, IV, tag and body, without the plaintext', () => {
    const sealed = cipher.encrypt(TOKEN, ROW);
    const parts = sealed.split('.');
    expect(parts).toHaveLength(4);
    expect(parts[0]).toBe('v1');
    expect(Buffer.from(parts[1], 'base64url')).toHaveLength(12);
    expect(Buffer.from(parts[2], 'base64url')).toHaveLength(16);
    expect(Buffer.from(parts[3], 'base64url')).toHaveLength(Buffer.byteLength(TOKEN));
    expect(sealed).not.toContain(TOKEN);
    expect(sealed).not.toContain(Buffer.from(TOKEN).toString('base64url'));
    expect(sealed).not.toContain('EAAGm0PX4ZCps');
  });

  it('uses a fresh IV each time, so the same value seals differently', () => {
    const a = cipher.encrypt(TOKEN, ROW);
    const b = cipher.encrypt(TOKEN, ROW);
    expect(a).not.toBe(b);
    expect(a.split('.')[1]).not.toBe(b.split('.')[1]);
    expect(cipher.decrypt(a, ROW)).toBe(TOKEN);
    expect(cipher.decrypt(b, ROW)).toBe(TOKEN);
  });

  it('binds the ciphertext to its row id', () => {
    const sealed = cipher.encrypt(TOKEN, ROW);
    expect(() => cipher.decrypt(sealed, 'int_other')).toThrow();
    expect(() => cipher.decrypt(sealed, '')).toThrow();
  });

  it('throws when any part is tampered with', () => {
    const sealed = cipher.encrypt(TOKEN, ROW);
    for (const index of [1, 2, 3]) expect(() => cipher.decrypt(tamper(sealed, index), ROW)).toThrow();
    expect(() => cipher.decrypt(sealed.replace(/^v1\./, 'v2.'), ROW)).toThrow('Unreadable sealed value.');
    expect(() => cipher.decrypt(sealed.split('.').slice(0, 3).join('.'), ROW)).toThrow('Unreadable sealed value.');
    expect(() => cipher.decrypt('', ROW)).toThrow('Unreadable sealed value.');
    expect(() => cipher.decrypt(TOKEN, ROW)).toThrow();
  });

  it('throws when the tag is cut short (GCM must insist on the full 16-byte tag)', () => {
    const [version, iv, tag, body] = cipher.encrypt(TOKEN, ROW).split('.');
    const short = Buffer.from(tag, 'base64url').subarray(0, 4).toString('base64url');
    expect(() => cipher.decrypt([version, iv, short, body].join('.'), ROW)).toThrow();
  });

  it('cannot be decrypted with another key', () => {
    const sealed = cipher.encrypt(TOKEN, ROW);
    expect(() => cipherWith('z'.repeat(40)).decrypt(sealed, ROW)).toThrow();
    expect(cipherWith('x'.repeat(40)).decrypt(sealed, ROW)).toBe(TOKEN);
  });
});

describe('TokenCipher sign/verify', () => {
  it('round-trips a value, dots included', () => {
    const signed = cipher.sign('state_123');
    expect(signed.startsWith('state_123.')).toBe(true);
    expect(signed.slice('state_123.'.length)).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(cipher.verify(signed)).toBe('state_123');
    expect(cipher.verify(cipher.sign('a.b.c'))).toBe('a.b.c');
  });

  it('is deterministic for a key and differs across keys', () => {
    expect(cipher.sign('s')).toBe(cipher.sign('s'));
    expect(cipherWith('z'.repeat(40)).sign('s')).not.toBe(cipher.sign('s'));
    expect(cipherWith('z'.repeat(40)).verify(cipher.sign('s'))).toBeNull();
  });

  it('does not sign with the encryption key (separate derived keys)', () => {
    const sealed = cipher.encrypt('v', ROW);
    expect(sealed).not.toContain(cipher.sign('v').split('.')[1]);
  });

  it('returns null for a tampered value or signature', () => {
    const signed = cipher.sign('state_123');
    const sig = signed.slice('state_123.'.length);
    expect(cipher.verify(`state_124.${sig}`)).toBeNull();
    expect(cipher.verify(`state_123.${sig[0] === 'A' ? 'B' : 'A'}${sig.slice(1)}`)).toBeNull();
    expect(cipher.verify(`state_123.${sig.slice(0, -1)}`)).toBeNull();
    expect(cipher.verify(`state_123.${sig}x`)).toBeNull();
    expect(cipher.verify('state_123.')).toBeNull();
  });

  it('returns null without a dot or without a value', () => {
    expect(cipher.verify('nodot')).toBeNull();
    expect(cipher.verify('')).toBeNull();
    expect(cipher.verify(`.${cipher.sign('x').split('.')[1]}`)).toBeNull();
  });
});
