import { describe, expect, it } from '@jest/globals';
import {
  base32Decode,
  base32Encode,
  generateRecoveryCodes,
  generateTotpSecret,
  hashRecoveryCode,
  hotp,
  matchTotp,
  normalizeRecoveryCode,
  otpauthUri,
  totp,
  totpStep,
} from './totp.js';

const RFC_SECRET = Buffer.from('12345678901234567890', 'ascii');

describe('HOTP (RFC 4226 appendix D)', () => {
  const expected = ['755224', '287082', '359152', '969429', '338314', '254676', '287922', '162583', '399871', '520489'];
  it.each(expected.map((code, counter): [number, string] => [counter, code]))('counter %i gives %s', (counter, code) => {
    expect(hotp(RFC_SECRET, counter)).toBe(code);
  });
});

describe('TOTP (RFC 6238 appendix B, SHA-1, 8 digits)', () => {
  const vectors: Array<[number, string]> = [
    [59, '94287082'],
    [1111111109, '07081804'],
    [1111111111, '14050471'],
    [1234567890, '89005924'],
    [2000000000, '69279037'],
    [20000000000, '65353130'],
  ];
  it.each(vectors)('at %i s gives %s', (seconds, code) => {
    expect(totp(RFC_SECRET, seconds * 1000, 8)).toBe(code);
  });

  it('SHA-256 and SHA-512 vectors too (the HMAC is the only difference)', () => {
    expect(totp(Buffer.from('12345678901234567890123456789012', 'ascii'), 59_000, 8, 'sha256')).toBe('46119246');
    expect(totp(Buffer.from('1234567890123456789012345678901234567890123456789012345678901234', 'ascii'), 59_000, 8, 'sha512')).toBe('90693936');
  });

  it('six digits are the last six of the eight', () => {
    expect(totp(RFC_SECRET, 1111111109_000)).toBe('081804');
  });

  it('counts 30-second steps from the epoch', () => {
    expect(totpStep(0)).toBe(0);
    expect(totpStep(29_999)).toBe(0);
    expect(totpStep(30_000)).toBe(1);
    expect(totpStep(1111111109_000)).toBe(37037036);
  });
});

describe('matchTotp', () => {
  const now = 1_700_000_015_000;
  const step = totpStep(now);
  const at = (s: number) => hotp(RFC_SECRET, s);

  it('accepts the current step and one either side, answering the step matched', () => {
    expect(matchTotp(RFC_SECRET, at(step), now, null)).toBe(step);
    expect(matchTotp(RFC_SECRET, at(step - 1), now, null)).toBe(step - 1);
    expect(matchTotp(RFC_SECRET, at(step + 1), now, null)).toBe(step + 1);
  });

  it('refuses two steps away', () => {
    expect(matchTotp(RFC_SECRET, at(step - 2), now, null)).toBeNull();
    expect(matchTotp(RFC_SECRET, at(step + 2), now, null)).toBeNull();
  });

  it('refuses a step at or before the last one used (a replay), accepts a later one', () => {
    expect(matchTotp(RFC_SECRET, at(step), now, step)).toBeNull();
    expect(matchTotp(RFC_SECRET, at(step - 1), now, step)).toBeNull();
    expect(matchTotp(RFC_SECRET, at(step + 1), now, step)).toBe(step + 1);
    expect(matchTotp(RFC_SECRET, at(step), now, step - 1)).toBe(step);
  });

  it('refuses anything that is not six digits', () => {
    for (const bad of ['', '12345', '1234567', 'abcdef', ' 12345', '12 345']) expect(matchTotp(RFC_SECRET, bad, now, null)).toBeNull();
  });

  it('refuses a code made with another secret', () => {
    const other = base32Decode(generateTotpSecret());
    expect(matchTotp(RFC_SECRET, hotp(other, step) === at(step) ? '000000' : hotp(other, step), now, null)).toBeNull();
  });
});

describe('base32 and secrets', () => {
  it('encodes RFC 4648 test vectors (no padding)', () => {
    expect(base32Encode(Buffer.from('foobar'))).toBe('MZXW6YTBOI');
    expect(base32Encode(Buffer.from('f'))).toBe('MY');
    expect(base32Encode(RFC_SECRET)).toBe('GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ');
  });

  it('decodes what it encodes, any case, spaces and padding ignored', () => {
    expect(base32Decode('mzxw 6ytb oi======').toString()).toBe('foobar');
    expect(base32Decode('GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ')).toEqual(RFC_SECRET);
    expect(() => base32Decode('MZ1W')).toThrow();
  });

  it('secrets are 20 random bytes (32 base32 characters), never the same twice', () => {
    const a = generateTotpSecret();
    expect(a).toMatch(/^[A-Z2-7]{32}$/);
    expect(base32Decode(a)).toHaveLength(20);
    expect(generateTotpSecret()).not.toBe(a);
  });

  it('the otpauth URI names the issuer and the account, and carries the secret', () => {
    const uri = otpauthUri('Persona Studio', 'ada+x@example.com', 'JBSWY3DPEHPK3PXP');
    expect(uri).toBe('otpauth://totp/Persona%20Studio:ada%2Bx%40example.com?secret=JBSWY3DPEHPK3PXP&issuer=Persona%20Studio&algorithm=SHA1&digits=6&period=30');
  });
});

describe('recovery codes', () => {
  it('ten distinct codes shaped xxxxx-xxxxx without look-alike characters', () => {
    const codes = generateRecoveryCodes();
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    for (const c of codes) expect(c).toMatch(/^[a-hjkmnp-z2-9]{5}-[a-hjkmnp-z2-9]{5}$/);
  });

  it('are recognised however they are typed, and hashed (never kept as typed)', () => {
    expect(normalizeRecoveryCode(' ABCDE-FGHJK ')).toBe('abcde-fghjk');
    expect(normalizeRecoveryCode('abcdefghjk')).toBe('abcde-fghjk');
    expect(hashRecoveryCode('ABCDEFGHJK')).toBe(hashRecoveryCode('abcde-fghjk'));
    expect(hashRecoveryCode('abcde-fghjk')).toMatch(/^[0-9a-f]{64}$/);
    expect(hashRecoveryCode('abcde-fghjm')).not.toBe(hashRecoveryCode('abcde-fghjk'));
  });
});
