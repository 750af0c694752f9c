import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { api, registerUser, uniqueEmail } from '../helpers/api.js';
import { startSmtpCapture, tokenFromLink, type CapturedMail, type SmtpCapture } from '../helpers/mail.js';
import { createBacking, startServer, waitFor, type Backing, type TestServer } from '../helpers/server.js';

const APP_URL = 'https://app.account-mail.test';
const PASSWORD = 'correct-horse-battery';

/**
 * Every account mail over real SMTP (issue 26): each flow's message reaches a local SMTP server
 * once, addressed to the right person, with its action link under APP_URL, and the link's token
 * is the one that completes the flow. The per-flow suites read the offline mailbox; this one
 * proves the same messages leave through the SMTP adapter.
 */
describe('account mail over SMTP', () => {
  let backing: Backing;
  let server: TestServer;
  let smtp: SmtpCapture;

  beforeAll(async () => {
    smtp = await startSmtpCapture();
    backing = await createBacking();
    server = await startServer(backing, { APP_URL, SMTP_URL: smtp.url, AUTH_RATE_LIMIT_PER_MINUTE: '1000', RUN_JOBS_IN_API: 'true' });
  }, 180_000);
  afterAll(async () => {
    await server?.stop();
    await backing?.cleanup();
    await smtp?.stop();
  });

  /** The message's action link (the first link), checked to lie under APP_URL at `path`. */
  function actionLink(mail: CapturedMail, path: string): string {
    const link = mail.links[0];
    expect(link.startsWith(`${APP_URL}${path}`)).toBe(true);
    expect(mail.html).toContain(link.replace(/&/g, '&amp;'));
    return link;
  }

  it('verification, password reset, password changed: each arrives once, and its link completes the flow', async () => {
    const user = await registerUser(server, {}, { verified: false });
    const email = user.user.email;
    const verification = await smtp.waitForMail(email, 'account.email_verification_requested');
    const verified = await api(server).post('/auth/verify-email').send({ token: tokenFromLink(actionLink(verification, '/verify-email?token=')) });
    expect(verified.status).toBe(200);
    expect((await api(server).get('/auth/me').set(user.auth)).body.user.email_verified).toBe(true);

    expect((await api(server).post('/auth/password/forgot').send({ email })).status).toBe(202);
    const reset = await smtp.waitForMail(email, 'account.password_reset_requested');
    const newPassword = 'a-brand-new-passphrase-42';
    const done = await api(server).post('/auth/password/reset').send({ token: tokenFromLink(actionLink(reset, '/reset-password?token=')), password: newPassword });
    expect(done.status).toBe(204);
    const changed = await smtp.waitForMail(email, 'account.password_changed');
    actionLink(changed, '/settings/security');
    expect((await api(server).post('/auth/login').send({ email, password: newPassword })).status).toBe(200);

    // No second copy of any of them, once the last one has arrived (each was committed before it).
    for (const template of ['account.email_verification_requested', 'account.password_reset_requested', 'account.password_changed']) {
      expect(smtp.mailTo(email, template)).toHaveLength(1);
    }
  });

  it('an email change: the confirmation goes to the new address only, the notice to the old one', async () => {
    const user = await registerUser(server, {}, { verified: false });
    const oldEmail = user.user.email;
    await smtp.waitForMail(oldEmail, 'account.email_verification_requested');
    const newEmail = uniqueEmail('moved');
    expect((await api(server).put('/auth/email').set(user.auth).send({ password: PASSWORD, email: newEmail })).status).toBe(202);
    const confirm = await smtp.waitForMail(newEmail, 'account.email_change_requested');
    expect(confirm.to).toEqual([newEmail]);
    const res = await api(server).post('/auth/verify-email').send({ token: tokenFromLink(actionLink(confirm, '/confirm-email?token=')) });
    expect(res.status).toBe(200);
    const notice = await smtp.waitForMail(oldEmail, 'account.email_changed');
    expect(notice.text).toContain(newEmail);
    expect(smtp.mailTo(oldEmail, 'account.email_change_requested')).toHaveLength(0);
    expect(smtp.mailTo(newEmail, 'account.email_changed')).toHaveLength(0);
    expect((await api(server).get('/auth/me').set(user.auth)).body.user.email).toBe(newEmail);
  });

  it('a sign-in from a new device (alerts on), an export ready and a deletion scheduled each mail the user once', async () => {
    const user = await registerUser(server, {}, { verified: false });
    const email = user.user.email;
    expect((await api(server).put('/auth/preferences').set(user.auth).send({ sign_in_alerts: true })).status).toBe(200);
    const login = await api(server).post('/auth/login').set('User-Agent', 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1').send({ email, password: PASSWORD });
    expect(login.status).toBe(200);
    const alert = await smtp.waitForMail(email, 'account.new_sign_in');
    actionLink(alert, '/settings/security');
    expect(alert.text).toContain('Safari on iOS');

    const ordered = await api(server).post('/auth/export').set(user.auth).send({});
    expect(ordered.status).toBe(202);
    const exportId: string = ordered.body.export.id;
    const ready = await smtp.waitForMail(email, 'account.export_ready', 60_000);
    actionLink(ready, `/settings/export?export=${exportId}`);
    await waitFor(async () => (await api(server).get(`/auth/exports/${exportId}`).set(user.auth)).body.export?.status === 'ready', 10_000, 'the export ready');

    const deletion = await api(server).delete('/auth/account').set({ Authorization: `Bearer ${login.body.access_token}` }).send({ password: PASSWORD });
    expect(deletion.status).toBe(202);
    const scheduled = await smtp.waitForMail(email, 'account.deletion_scheduled');
    actionLink(scheduled, '/login');
    for (const template of ['account.new_sign_in', 'account.export_ready', 'account.deletion_scheduled']) {
      expect(smtp.mailTo(email, template)).toHaveLength(1);
    }
  });
});
