import { describe, expect, it } from '@jest/globals';
import { defaultDisplayName, normalizeEmail, passwordProblem } from './password-policy.js';

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
