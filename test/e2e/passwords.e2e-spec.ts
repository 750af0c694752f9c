import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { api, uniqueEmail } from '../helpers/api.js';
import { createBacking, startServer, type Backing, type TestServer } from '../helpers/server.js';

const register = (server: TestServer, email: string, password: string) =>
  api(server).post('/auth/register').send({ email, password, accept_terms: true, accept_privacy: true });

/** OWASP ASVS 2.1.7: registration refuses breached passwords and their trivial variants, saying why. */
describe('password rules at registration', () => {
  let backing: Backing;
  let server: TestServer;

  beforeAll(async () => {
    backing = await createBacking();
    server = await startServer(backing, { AUTH_RATE_LIMIT_PER_MINUTE: '1000' });
  });
  afterAll(async () => {
    await server?.stop();
    await backing?.cleanup();
  });

  it('refuses common and breached-pattern passwords with a 400 naming the password field, and creates no account', async () => {
    for (const password of ['password123', 'Qwerty2024!', 'P@ssw0rd!', 'iloveyou2024', 'Football#1', 'aaaaaaaaaa']) {
      const email = uniqueEmail('pw');
      const res = await register(server, email, password);
      expect([password, res.status, res.body.code]).toEqual([password, 400, 'validation_failed']);
      expect(res.body.details).toEqual([{ field: 'password', message: expect.stringMatching(/^password is too common/) }]);
      expect(JSON.stringify(res.body)).not.toContain(password);
      // Nothing was made: the same email registers at once with a good password.
      expect((await register(server, email, 'correct-horse-battery')).status).toBe(201);
    }
  });

  it("refuses a password built on the email's name part, and says so", async () => {
    const email = uniqueEmail('lovelace');
    const name = email.split('@')[0];
    const res = await register(server, email, `${name.toUpperCase()}!2024`);
    expect([res.status, res.body.code]).toEqual([400, 'validation_failed']);
    expect(res.body.details).toEqual([{ field: 'password', message: expect.stringMatching(/contains your email/) }]);
  });

  it('accepts a passphrase, even one made of dictionary words', async () => {
    expect((await register(server, uniqueEmail('pw-ok'), 'correct-horse-battery')).status).toBe(201);
    expect((await register(server, uniqueEmail('pw-ok'), 'lantern monkey orbit')).status).toBe(201);
  });
});
