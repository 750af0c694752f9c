import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { api, loginAdmin, registerUser, setPlan, uniqueEmail, type TestUser } from '../helpers/api.js';
import { mailbox, mailboxLink, startSmtpCapture, tokenFromLink, type SmtpCapture } from '../helpers/mail.js';
import { createBacking, startServer, waitFor, type Backing, type TestServer } from '../helpers/server.js';

const APP_URL = 'https://app.persona.test';
const INVITED = 'organisation.invitation_created';
const BASE_ENV = { APP_URL, AUTH_RATE_LIMIT_PER_MINUTE: '1000', RATE_LIMIT_MULTIPLIER: '50', OUTBOX_RETRY_BASE_MS: '200', OUTBOX_RETRY_MAX_MS: '1000' };

async function agencyOwner(server: TestServer): Promise<TestUser> {
  const owner = await registerUser(server);
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

    const invitee = await registerUser(server, { email });
    const accepted = await api(server).post(`/invitations/${tokenFromLink(link)}/accept`).set(invitee.auth);
    expect(accepted.status).toBe(200);
    expect(accepted.body.organization.id).toBe(owner.workspace.id);
  });
});
