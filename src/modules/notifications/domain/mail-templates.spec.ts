import { describe, expect, it } from '@jest/globals';
import type { OutboxEventPayloads, OutboxEventType, WebhookEventType } from '../../../core/index.js';
import { escapeHtml, headerSafe, linksIn, MAIL_EVENT_TYPES, renderMail, TemplateProblem, type MailLook } from './mail-templates.js';
import { parseSender } from './sender.js';

const APP = 'https://app.example.com';
const at = '2024-12-05T14:03:09.000Z';

/** One payload per event type; `expected`: the first link the message must carry. */
type MailEventType = Exclude<OutboxEventType, 'billing.provider_event' | 'engagement.message_received' | 'engagement.reply_due' | Exclude<WebhookEventType, 'credits.low'>>;

const CASES: { [T in MailEventType]: { payload: OutboxEventPayloads[T]; to: string | null; link: string; subject: RegExp } } = {
  'account.email_verification_requested': { payload: { userId: 'user_1', email: 'a@x.test' }, to: 'a@x.test', link: `${APP}/verify-email?token=tok`, subject: /^Verify your email address for Persona Studio$/ },
  'account.email_change_requested': { payload: { userId: 'user_1', newEmail: 'new@x.test' }, to: 'new@x.test', link: `${APP}/confirm-email?token=tok`, subject: /Confirm your new email address/ },
  'account.email_changed': { payload: { userId: 'user_1', oldEmail: 'old@x.test', newEmail: 'new@x.test' }, to: 'old@x.test', link: `${APP}/settings/security`, subject: /email address was changed/ },
  'account.password_reset_requested': { payload: { userId: 'user_1', email: 'a@x.test' }, to: 'a@x.test', link: `${APP}/reset-password?token=tok`, subject: /^Reset your Persona Studio password$/ },
  'account.password_changed': { payload: { userId: 'user_1', email: 'a@x.test' }, to: 'a@x.test', link: `${APP}/settings/security`, subject: /password was changed/ },
  'account.new_sign_in': { payload: { userId: 'user_1', email: 'a@x.test', device: 'Firefox on Linux', ipPrefix: '203.0.113.0/24', at }, to: 'a@x.test', link: `${APP}/settings/security`, subject: /New sign-in/ },
  'account.export_ready': { payload: { userId: 'user_1', email: 'a@x.test', exportId: 'exp_1', expiresAt: at }, to: 'a@x.test', link: `${APP}/settings/export?export=exp_1`, subject: /data export is ready/ },
  'account.deletion_scheduled': { payload: { userId: 'user_1', email: 'a@x.test', purgeAt: at }, to: 'a@x.test', link: `${APP}/login`, subject: /scheduled for deletion/ },
  'organisation.invitation_created': {
    payload: { invitationId: 'inv_1', email: 'b@x.test', role: 'editor', inviterName: 'Ada', workspaceName: 'Acme' }, to: 'b@x.test', link: `${APP}/invitations/accept?token=tok`, subject: /^Ada invited you to join Acme on Persona Studio$/,
  },
  'credits.low': {
    payload: { threshold: 10, remaining: 20, granted: 200, balance: 120, resetsAt: at }, to: null, link: `${APP}/settings/billing`, subject: /^Your Persona Studio monthly credits are running low$/,
  },
  'billing.payment_failed': {
    payload: { invoiceId: 'in_1', amount: 2900, currency: 'usd', hostedUrl: null, plan: 'pro' }, to: null, link: `${APP}/settings/billing`, subject: /^Your Persona Studio payment failed$/,
  },
};

describe('mail templates', () => {
  it('has a template for every event type that sends mail, all of them today', () => {
    expect([...MAIL_EVENT_TYPES].sort()).toEqual(Object.keys(CASES).sort());
  });

  for (const type of Object.keys(CASES) as MailEventType[]) {
    it(`${type}: recipient, subject, the action link first in text, HTML and links`, () => {
      const c = CASES[type];
      const mail = renderMail(type, c.payload as never, { appUrl: APP, secret: 'tok', branding: null });
      expect(mail.to).toBe(c.to);
      expect(mail.subject).toMatch(c.subject);
      expect(mail.links).toEqual([c.link]);
      expect(linksIn(mail.text)[0]).toBe(c.link);
      expect(linksIn(mail.text).every((l) => l.startsWith(`${APP}/`))).toBe(true);
      expect(mail.html).toContain(`href="${escapeHtml(c.link)}"`);
      expect(mail.text).toContain('Sent by Persona Studio.');
    });
  }

  it("sends a failed payment's reader to the provider's invoice page when there is one, with the amount in their currency", () => {
    const payload = { ...CASES['billing.payment_failed'].payload, hostedUrl: 'https://invoice.stripe.com/i/acct_1/in_1' };
    const mail = renderMail('billing.payment_failed', payload, { appUrl: APP, secret: undefined, branding: null });
    expect(mail.links).toEqual(['https://invoice.stripe.com/i/acct_1/in_1']);
    expect(mail.text).toContain('$29.00');
  });

  it('refuses to render a token link without the token (no retry can help)', () => {
    expect(() => renderMail('account.password_reset_requested', CASES['account.password_reset_requested'].payload, { appUrl: APP, secret: undefined, branding: null })).toThrow(TemplateProblem);
  });

  it('escapes every interpolated value in the HTML, and percent-encodes the token in the link', () => {
    const evil = '<script>alert("x")</script>&\'';
    const mail = renderMail('organisation.invitation_created', { invitationId: 'inv_1', email: 'b@x.test', role: 'editor', inviterName: evil, workspaceName: `<img src=x onerror=1>` }, { appUrl: APP, secret: 'a b&c"<', branding: null });
    expect(mail.html).not.toContain('<script>');
    expect(mail.html).not.toContain('<img src=x');
    expect(mail.html).toContain('&#60;script&#62;alert(&#34;x&#34;)&#60;/script&#62;&#38;&#39;');
    expect(mail.links[0]).toBe(`${APP}/invitations/accept?token=a%20b%26c%22%3C`);
    expect(mail.text).toContain(evil);
  });

  it('keeps a subject on one header line', () => {
    const mail = renderMail('organisation.invitation_created', { invitationId: 'inv_1', email: 'b@x.test', role: 'editor', inviterName: 'Ada\r\nBcc: victim@x.test', workspaceName: 'Acme' }, { appUrl: APP, secret: 't', branding: null });
    expect(mail.subject).not.toMatch(/[\r\n]/);
    expect(headerSafe('a\u0000b\tc')).toBe('a b c');
  });

  it('carries a workspace\'s branding: name in subject and footer, colour, logo, support address', () => {
    const branding: MailLook = { displayName: 'Acme Studio', primaryColor: '#FF0066', logoUrl: 'https://api.example.com/logo/ws_1?v=1', supportEmail: 'help@acme.test' };
    const mail = renderMail('organisation.invitation_created', CASES['organisation.invitation_created'].payload, { appUrl: APP, secret: 'tok', branding });
    expect(mail.subject).toBe('Ada invited you to join Acme on Acme Studio');
    expect(mail.html).toContain('#FF0066');
    expect(mail.html).toContain('<img src="https://api.example.com/logo/ws_1?v=1"');
    expect(mail.text).toContain('Sent by Acme Studio (powered by Persona Studio). Questions? Write to help@acme.test.');
    expect(mail.links).toEqual([`${APP}/invitations/accept?token=tok`]);
    expect(linksIn(mail.text)).toEqual(mail.links);
  });

  it('ignores a colour that is not #RRGGBB (it goes into a style attribute)', () => {
    const branding: MailLook = { displayName: 'X', primaryColor: 'red;background:url(x)', logoUrl: null, supportEmail: null };
    const mail = renderMail('account.password_changed', CASES['account.password_changed'].payload, { appUrl: APP, secret: undefined, branding });
    expect(mail.html).not.toContain('url(x)');
    expect(mail.html).toContain('#4F46E5');
  });

  it('writes times in UTC, unambiguous', () => {
    const mail = renderMail('account.new_sign_in', CASES['account.new_sign_in'].payload, { appUrl: APP, secret: undefined, branding: null });
    expect(mail.text).toContain('2024-12-05 14:03 UTC');
    expect(mail.text).toContain('203.0.113.0/24');
  });
});

describe('MAIL_FROM', () => {
  it('splits a named sender and a bare address', () => {
    expect(parseSender('Persona Studio <no-reply@localhost>', 'X')).toEqual({ name: 'Persona Studio', address: 'no-reply@localhost' });
    expect(parseSender('"Studio, Inc" <a@b.test>', 'X')).toEqual({ name: 'Studio, Inc', address: 'a@b.test' });
    expect(parseSender('a@b.test', 'Fallback')).toEqual({ name: 'Fallback', address: 'a@b.test' });
  });
});
