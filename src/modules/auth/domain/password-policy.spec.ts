import { describe, expect, it } from '@jest/globals';
import { CONTAINS_EMAIL, defaultDisplayName, guessablePasswordProblem, normalizeEmail, passwordProblem, passwordVariants, TOO_COMMON } from './password-policy.js';

describe('passwordProblem', () => {
  it('accepts 8 to 128 characters', () => {
    expect(passwordProblem('12345678')).toBeNull();
    expect(passwordProblem('x'.repeat(128))).toBeNull();
  });

  it('refuses shorter and longer passwords with a reason', () => {
    expect(passwordProblem('1234567')).toMatch(/at least 8/);
    expect(passwordProblem('')).toMatch(/at least 8/);
    expect(passwordProblem('x'.repeat(129))).toMatch(/at most 128/);
  });
});

describe('normalizeEmail', () => {
  it('trims and lower-cases', () => {
    expect(normalizeEmail('  Ada@Example.COM ')).toBe('ada@example.com');
  });
});

describe('defaultDisplayName', () => {
  it("is the email's local part, capped", () => {
    expect(defaultDisplayName('ada.lovelace@example.com')).toBe('ada.lovelace');
    expect(defaultDisplayName(`${'a'.repeat(90)}@example.com`)).toHaveLength(80);
  });
});

describe('guessablePasswordProblem', () => {
  // A stand-in dictionary: the rule is about variants of listed words, not about the list itself.
  const listed = new Set(['password', 'qwerty', 'monkey', 'dragon', 'iloveyou', 'summer', 'p@ssw0rd', '12345678']);
  const isCommon = (w: string) => listed.has(w);
  const check = (password: string, email?: string) => guessablePasswordProblem(password, email, isCommon);

  it('refuses a listed password as typed, in any case', () => {
    for (const p of ['password', 'PASSWORD', 'Password', '12345678', 'p@ssw0rd']) expect(check(p)).toBe(TOO_COMMON);
  });

  it('refuses a listed word with digits, years or symbols around it', () => {
    for (const p of ['password123', 'Qwerty2024!', '2024Summer!', '!!monkey!!', 'dragon_1987', 'iloveyou.']) expect(check(p)).toBe(TOO_COMMON);
  });

  it('refuses a listed word with letter-for-symbol swaps undone, 1 read as i and as l', () => {
    for (const p of ['P4ssw0rd', 'p@$$w0rd!', 'M0nk3y', 'dr4g0n2020', '1l0v3y0u', 'Summ3r!']) expect(check(p)).toBe(TOO_COMMON);
  });

  it('refuses one short group repeated', () => {
    for (const p of ['aaaaaaaa', 'abcabcabc', '12121212', 'xyzwxyzw']) expect(check(p)).toBe(TOO_COMMON);
  });

  it("refuses a password containing the email's name part, swaps undone, and says so", () => {
    expect(check('ada.lovelace2024', 'ada.lovelace@example.com')).toBe(CONTAINS_EMAIL);
    expect(check('My-ADA.LOVELACE-pw', 'ada.lovelace@example.com')).toBe(CONTAINS_EMAIL);
    expect(check('4d4.l0v3l4c3!', 'ada.lovelace@example.com')).toBe(CONTAINS_EMAIL);
    expect(CONTAINS_EMAIL).toMatch(/contains your email/);
    expect(TOO_COMMON).toMatch(/too common/);
  });

  it('accepts passphrases and passwords merely containing a listed word, and ignores a short email name', () => {
    for (const p of ['correct-horse-battery', 'monkey-tree-lantern', 'xk7#Rq2!mPz9', 'admin-password-123', '8472916350']) expect(check(p)).toBeNull();
    expect(check('bob-is-sledging-99', 'bob@example.com')).toBeNull();
    expect(check('correct-horse-battery', 'user.1.abc@e2e.test')).toBeNull();
  });

  it('never includes the password in its answer', () => {
    for (const p of ['password123', 'ada.lovelace2024']) expect(check(p, 'ada.lovelace@example.com')).not.toContain(p);
  });
});

describe('passwordVariants', () => {
  it('holds the lower-cased password, its core without edge digits and symbols, and the swaps undone', () => {
    expect([...passwordVariants('P4ssw0rd1!')]).toEqual(expect.arrayContaining(['p4ssw0rd1!', 'p4ssw0rd', 'password']));
  });

  it('keeps no core shorter than three characters', () => {
    expect([...passwordVariants('ab123456')]).not.toContain('ab');
  });
});
