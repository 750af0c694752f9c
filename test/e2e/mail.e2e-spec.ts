import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { api, loginAdmin, registerUser, setPlan, uniqueEmail, type TestUser } from '../helpers/api.js';
import { databaseClient, sql } from '../helpers/database.js';
import { mailbox, mailboxLink, startSmtpCapture, tokenFromLink, type SmtpCapture } from '../helpers/mail.js';
import { ADMIN_EMAIL, createBacking, startServer, startWorker, waitFor, type Backing, type RunningProcess, type TestServer } from '../helpers/server.js';
import { describeOnServices } from '../helpers/env.js';

const APP_URL = 'https://app.persona.test';
const INVITED = 'organisation.invitation_created';
const PROD_ADMIN_PASSWORD = `Prod-${randomBytes(12).toString('base64url')}`;
const BASE_ENV = { APP_URL, AUTH_RATE_LIMIT_PER_MINUTE: '1000', RATE_LIMIT_MULTIPLIER: '50', OUTBOX_RETRY_BASE_MS: '200', OUTBOX_RETRY_MAX_MS: '1000' };

/** Waits until the outbox has nothing left to do (every event done). */
async function outboxSettled(backing: Backing): Promise<void> {
  await waitFor(async () => (await sql<{ n: string }>(backing, 'SELECT count(*) AS n FROM outbox_events WHERE done_at IS NULL'))[0].n === '0', 15_000, 'the outbox to settle');
}

async function agencyOwner(server: TestServer): Promise<TestUser> {
  const owner = await registerUser(server, {}, { verified: false });
  await setPlan(server, await loginAdmin(server), owner.workspace.id, 'agency');
  return owner;
}

async function invite(server: TestServer, owner: TestUser, email: string): Promise<{ id: string; token: string }> {
  const res = await api(server).post(`/organizations/${owner.workspace.id}/members`).set(owner.auth).send({ email, role: 'editor' });
  expect(res.status).toBe(201);
  return res.body.invitation as { id: string; token: string };
}

describe('transactional mail through the offline mailbox (no SMTP_URL)', () => {
  let backing: Backing;
  let server: TestServer;

  beforeAll(async () => {
    backing = await createBacking();
    server = await startServer(backing, BASE_ENV);
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
    await backing?.cleanup();
  });

  it('keeps an invitation for the dev mailbox, whose link accepts it', async () => {
    const owner = await agencyOwner(server);
    const email = uniqueEmail('invitee');
    const invitation = await invite(server, owner, email);
    const link = await mailboxLink(server, email.toUpperCase(), INVITED);
    expect(link).toBe(`${APP_URL}/invitations/accept?token=${encodeURIComponent(invitation.token)}`);
    const [message] = await mailbox(server, email);
    expect(message).toMatchObject({ to: email, template: INVITED, links: [link] });
    expect(message.id).toMatch(/^mail_/);
    expect(message.subject).toContain('invited you to join');
    expect(message.html).toContain(`href="${link}"`);
    expect(Date.parse(message.created_at)).not.toBeNaN();

    const invitee = await registerUser(server, { email }, { verified: false });
    const accepted = await api(server).post(`/invitations/${tokenFromLink(link)}/accept`).set(invitee.auth);
    expect(accepted.status).toBe(200);
    expect(accepted.body.organization.id).toBe(owner.workspace.id);
  });

  it('records the kept message as sent with an offline provider id, and its event as done without its secret', async () => {
    const owner = await agencyOwner(server);
    const email = uniqueEmail('kept');
    await invite(server, owner, email);
    await mailboxLink(server, email, INVITED);
    await outboxSettled(backing);
    const rows = await sql(backing, 'SELECT id, status, provider_id, attempts, workspace_id, sent_at, event_id FROM mail_messages WHERE to_address = $1', [email]);
    expect(rows).toEqual([expect.objectContaining({ status: 'sent', attempts: 1, workspace_id: owner.workspace.id })]);
    expect(rows[0].provider_id).toBe(`offline:${String(rows[0].id)}`);
    const [event] = await sql(backing, 'SELECT type, delivered_to, secret_sealed, attempts, last_error FROM outbox_events WHERE id = $1', [rows[0].event_id]);
    expect(event).toEqual({ type: INVITED, delivered_to: ['mail'], secret_sealed: null, attempts: 1, last_error: null });
  });

  it('answers newest first, only to the address asked for, and validates the query', async () => {
    const owner = await agencyOwner(server);
    const email = uniqueEmail('twice');
    const first = await invite(server, owner, email);
    await mailboxLink(server, email, INVITED);
    expect((await api(server).delete(`/organizations/${owner.workspace.id}/invitations/${first.id}`).set(owner.auth)).status).toBe(204);
    const second = await invite(server, owner, email);
    const link = await mailboxLink(server, email, INVITED, { count: 2 });
    expect(tokenFromLink(link)).toBe(second.token);
    expect((await mailbox(server, uniqueEmail('nobody')))).toEqual([]);
    const tooLong = await api(server).get('/dev/mailbox').query({ to: `${'a'.repeat(320)}@x.test` });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.code).toBe('validation_failed');
    expect((await api(server).get('/dev/mailbox').query({ to: email, extra: '1' })).status).toBe(400);
  });
});

describe('transactional mail over real SMTP', () => {
  let backing: Backing;
  let server: TestServer;
  let smtp: SmtpCapture;

  beforeAll(async () => {
    smtp = await startSmtpCapture();
    backing = await createBacking();
    server = await startServer(backing, { ...BASE_ENV, SMTP_URL: smtp.url, MAIL_FROM: 'Persona Studio <mail@persona.test>' });
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
    await smtp?.stop();
    await backing?.cleanup();
  });

  it('sends an invitation once, with its template header and an accept link whose token works', async () => {
    const owner = await agencyOwner(server);
    const email = uniqueEmail('smtp');
    const invitation = await invite(server, owner, email);
    const mail = await smtp.waitForMail(email, INVITED);
    expect(mail.template).toBe(INVITED);
    expect(mail.from).toMatch(/^"?Persona Studio"? <mail@persona\.test>$/);
    expect(mail.replyTo).toBeNull();
    expect(mail.links).toEqual([`${APP_URL}/invitations/accept?token=${encodeURIComponent(invitation.token)}`]);
    expect(mail.html).toContain(`href="${mail.links[0]}"`);
    expect(mail.subject).toMatch(/invited you to join .+ on Persona Studio$/);

    const invitee = await registerUser(server, { email }, { verified: false });
    const accepted = await api(server).post(`/invitations/${tokenFromLink(mail.links[0])}/accept`).set(invitee.auth);
    expect(accepted.status).toBe(200);

    await outboxSettled(backing);
    expect(smtp.mailTo(email, INVITED)).toHaveLength(1);
    const [row] = await sql(backing, 'SELECT status, provider_id, attempts, text_body, html_body FROM mail_messages WHERE to_address = $1', [email]);
    expect(row).toEqual({ status: 'sent', provider_id: mail.messageId, attempts: 1, text_body: null, html_body: null });
  });

  it('carries the branding of the workspace the mail is sent for: name, colour, logo, reply-to', async () => {
    const owner = await agencyOwner(server);
    const branded = await api(server).put(`/organizations/${owner.workspace.id}/branding`).set(owner.auth)
      .send({ display_name: 'Acme Creators', primary_color: '#E11D48', support_email: 'help@acme.test' });
    expect(branded.status).toBe(200);
    const email = uniqueEmail('branded');
    await invite(server, owner, email);
    const mail = await smtp.waitForMail(email, INVITED);
    expect(mail.subject).toMatch(/ on Acme Creators$/);
    expect(mail.from).toMatch(/^"?Acme Creators"? <mail@persona\.test>$/);
    expect(mail.replyTo).toBe('help@acme.test');
    expect(mail.html).toContain('#E11D48');
    expect(mail.text).toContain('Sent by Acme Creators (powered by Persona Studio). Questions? Write to help@acme.test.');
  });

  it('retries while the SMTP server is down and delivers once when it is back', async () => {
    const owner = await agencyOwner(server);
    const email = uniqueEmail('retry');
    smtp.refusing = true;
    try {
      await invite(server, owner, email);
      // A third attempt under way: two at this message failed (an attempt is counted as it starts; other
      // mail, such as the owner's verification, may be refused meanwhile too).
      const failed = await waitFor(async () => {
        const [row] = await sql(backing, 'SELECT status, attempts, last_error FROM mail_messages WHERE to_address = $1', [email]);
        return row?.last_error && Number(row.attempts) >= 3 ? row : undefined;
      }, 15_000, 'two failed attempts');
      expect(smtp.refused).toBeGreaterThanOrEqual(2);
      expect(failed.status).toBe('queued');
      expect(String(failed.last_error)).toMatch(/421|not available/i);
      expect(smtp.mailTo(email)).toHaveLength(0);
    } finally {
      smtp.refusing = false;
    }
    await smtp.waitForMail(email, INVITED);
    await outboxSettled(backing);
    expect(smtp.mailTo(email, INVITED)).toHaveLength(1);
    const [row] = await sql(backing, 'SELECT status, attempts FROM mail_messages WHERE to_address = $1', [email]);
    expect(row.status).toBe('sent');
    expect(Number(row.attempts)).toBeGreaterThanOrEqual(3);
  });

  it('never delivers an event whose transaction rolled back; delivers a committed one once', async () => {
    const user = await registerUser(server, {}, { verified: false });
    const rolledBack = uniqueEmail('rolled-back');
    const committed = uniqueEmail('committed');
    const insert = 'INSERT INTO outbox_events (id, type, workspace_id, payload) VALUES ($1, $2, NULL, $3)';
    const values = (email: string): unknown[] => [`evt_${randomBytes(8).toString('hex')}`, 'account.password_changed', JSON.stringify({ userId: user.user.id, email })];
    const client = await databaseClient(backing);
    try {
      await client.query('BEGIN');
      await client.query(insert, values(rolledBack));
      await client.query('ROLLBACK');
      await client.query(insert, values(committed));
    } finally {
      await client.end();
    }
    const mail = await smtp.waitForMail(committed, 'account.password_changed');
    expect(mail.links).toEqual([`${APP_URL}/settings/security`]);
    await outboxSettled(backing);
    expect(smtp.mailTo(committed)).toHaveLength(1);
    expect(smtp.mailTo(rolledBack)).toHaveLength(0);
    expect(await sql(backing, 'SELECT id FROM mail_messages WHERE to_address = $1', [rolledBack])).toEqual([]);
  });

  it('has no dev mailbox when SMTP is configured', async () => {
    const res = await api(server).get('/dev/mailbox').query({ to: 'a@b.test' });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('not_found');
  });
});

describeOnServices('dispatch on workers only (OUTBOX_DISPATCH_IN_API=false)', () => {
  let backing: Backing;
  let server: TestServer;
  let worker: RunningProcess | undefined;

  beforeAll(async () => {
    backing = await createBacking({ services: true });
    server = await startServer(backing, { ...BASE_ENV, OUTBOX_DISPATCH_IN_API: 'false' });
  }, 120_000);

  afterAll(async () => {
    await worker?.stop();
    await server?.stop();
    await backing?.cleanup();
  });

  it('leaves events to the worker: nothing is sent until one runs, then each once', async () => {
    const owner = await agencyOwner(server);
    const email = uniqueEmail('worker');
    await invite(server, owner, email);
    // The API process does not dispatch: the event waits (checked over several poll intervals).
    await expect(mailboxLink(server, email, INVITED, { timeoutMs: 1_500 })).rejects.toThrow(/timed out/);
    worker = await startWorker(backing, { ...BASE_ENV });
    await mailboxLink(server, email, INVITED);
    await outboxSettled(backing);
    expect(await mailbox(server, email)).toHaveLength(1);
  });
});

describeOnServices('the dev mailbox in production', () => {
  let backing: Backing;
  let server: TestServer;

  beforeAll(async () => {
    // Production needs PostgreSQL and strong secrets, whatever the mode of the other blocks.
    backing = await createBacking({ services: true });
    const strong = () => randomBytes(36).toString('base64url');
    server = await startServer(backing, { ...BASE_ENV, NODE_ENV: 'production', JWT_SECRET: strong(), TOKEN_ENCRYPTION_KEY: strong(), ADMIN_PASSWORD: PROD_ADMIN_PASSWORD });
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
    await backing?.cleanup();
  });

  it('answers 404 as for any unknown route, mail kept or not', async () => {
    // A Starter workspace has one seat, its owner's: an invitation there is refused, so this one is the admin's.
    const login = await api(server).post('/auth/login').send({ email: ADMIN_EMAIL, password: PROD_ADMIN_PASSWORD });
    expect(login.status).toBe(200);
    const owner = { auth: { Authorization: `Bearer ${login.body.access_token}` }, workspace: (await api(server).get('/auth/me').set({ Authorization: `Bearer ${login.body.access_token}` })).body.workspace } as TestUser;
    await setPlan(server, owner.auth, owner.workspace.id, 'agency');
    const email = uniqueEmail('prod');
    await invite(server, owner, email);
    await outboxSettled(backing);
    const res = await api(server).get('/dev/mailbox').query({ to: email });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('not_found');
    expect(await sql(backing, 'SELECT status FROM mail_messages WHERE to_address = $1', [email])).toEqual([{ status: 'sent' }]);
  });
});
