import { describe, expect, it } from '@jest/globals';
import { AppError } from '../../../core/index.js';
import { CONTAINS_EMAIL, TOO_COMMON } from '../domain/password-policy.js';
import { CommonPasswords } from '../infrastructure/common-passwords.js';
import { PasswordRules } from './password-rules.js';

describe('PasswordRules with the shipped dictionary', () => {
  const rules = PasswordRules.standalone();

  it('refuses breached passwords and their trivial variants', async () => {
    const passwords = ['password123', 'Qwerty2024!', 'P@ssw0rd', 'iloveyou!', 'Summer2024', 'letmein!!', 'Football1', 'Dragon_1987'];
    const answers = await Promise.all(passwords.map(async (p) => [p, await rules.guessable(p)]));
    expect(answers).toEqual(passwords.map((p) => [p, TOO_COMMON]));
  });

  it('accepts the passwords the test suite and the README use', async () => {
    expect(await rules.guessable('correct-horse-battery', 'user.1.abc@e2e.test')).toBeNull();
    expect(await rules.guessable('admin-password-123')).toBeNull();
  });

  it('names the password field in a 400 validation error', async () => {
    const err = await rules.assertNotGuessable('lovelace-1815', 'lovelace@example.com').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ code: 'validation_failed', details: [{ field: 'password', message: CONTAINS_EMAIL }] });
  });
});

describe('CommonPasswords', () => {
  it('loads the dictionary once, for concurrent and later callers alike', async () => {
    const common = new CommonPasswords();
    const [a, b] = await Promise.all([common.load(), common.load()]);
    expect(a).toBe(b);
    expect(await common.load()).toBe(a);
    expect(a.size).toBeGreaterThan(40_000);
    expect(a.has('qwerty')).toBe(true);
  });
});
