import { describe, expect, it } from '@jest/globals';
import type { DataSource } from 'typeorm';
import { TOO_COMMON } from '../domain/password-policy.js';
import type { AccountsRepository } from '../infrastructure/accounts.repository.js';
import { AdminAccounts } from './admin-accounts.js';
import type { PasswordHasher } from './password-hasher.js';
import { PasswordRules } from './password-rules.js';

/** Only what ensureAdmin touches: nobody exists yet, and created users are kept. */
class FakeAccounts {
  users: Array<{ email: string; role: string }> = [];
  async findCredentialsByEmail() {
    return null;
  }
  async insertWorkspace() {}
  async insertUser(_tx: unknown, u: { email: string; role: string }) {
    this.users.push({ email: u.email, role: u.role });
  }
}

function admins() {
  const accounts = new FakeAccounts();
  const ds = { transaction: (work: (tx: unknown) => Promise<unknown>) => work({}) } as unknown as DataSource;
  const hasher = { hash: async (p: string) => `hashed:${p.length}` } as unknown as PasswordHasher;
  return { accounts, admins: new AdminAccounts(ds, accounts as unknown as AccountsRepository, hasher, PasswordRules.standalone()) };
}

describe('AdminAccounts.ensureAdmin password policy', () => {
  it('refuses a guessable password when told to (production), creating nothing', async () => {
    const { accounts, admins: a } = admins();
    await expect(a.ensureAdmin('ops@example.com', 'Password2024!', { refuseGuessable: true })).rejects.toThrow(/admin password is refused: password is too common/);
    await expect(a.ensureAdmin('operator@example.com', 'operator-2024', { refuseGuessable: true })).rejects.toThrow(/contains your email/);
    expect(accounts.users).toEqual([]);
  });

  it('takes it with a warning otherwise (development and tests)', async () => {
    const { accounts, admins: a } = admins();
    expect(await a.ensureAdmin('ops@example.com', 'Password2024!', { refuseGuessable: false })).toEqual({ outcome: 'created', weakPassword: TOO_COMMON });
    expect(accounts.users).toEqual([{ email: 'ops@example.com', role: 'admin' }]);
  });

  it('accepts a good password either way, and still refuses a short one', async () => {
    expect(await admins().admins.ensureAdmin('admin@e2e.test', 'vivid-otter-canal-42', { refuseGuessable: true })).toEqual({ outcome: 'created', weakPassword: null });
    await expect(admins().admins.ensureAdmin('admin@e2e.test', 'short', { refuseGuessable: false })).rejects.toThrow(/at least 8/);
  });
});
