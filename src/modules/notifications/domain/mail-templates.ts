import type { OutboxEventPayloads, OutboxEventType } from '../../../core/index.js';

export const PRODUCT_NAME = 'Persona Studio';
const DEFAULT_PRIMARY = '#4F46E5';
const COLOR = /^#[0-9A-Fa-f]{6}$/;

/** A workspace's look in a message; null fields fall back to the product's own. */
export interface MailLook {
  displayName: string | null;
  primaryColor: string | null;
  logoUrl: string | null;
  supportEmail: string | null;
}

/** What a template needs besides its payload. `secret`: the event's one-time token, when it has one. */
export interface RenderContext {
  appUrl: string;
  secret: string | undefined;
  branding: MailLook | null;
}

/** A message ready to send: `links` are its absolute URLs, the action first; `to` null: the workspace's owners. */
export interface RenderedMail {
  to: string | null;
  subject: string;
  text: string;
  html: string;
  links: string[];
}

/** A template that cannot be rendered (its token is missing): no retry helps. */
export class TemplateProblem extends Error {}

interface MailContent {
  /** Null: the owners of the event's workspace (a fact about the workspace, not about one user). */
  to: string | null;
  subject: string;
  heading: string;
  paragraphs: string[];
  action: { label: string; url: string } | null;
}

/** HTML-escapes a value put into markup or an attribute. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"'`]/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** One header line: no line breaks or control characters (a subject is a header), at most 200 characters. */
export function headerSafe(value: string): string {
  // eslint-disable-next-line no-control-regex
  return value.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim().slice(0, 200);
}

/** The absolute http(s) URLs in a text, in order, without trailing punctuation. */
export function linksIn(text: string): string[] {
  return [...text.matchAll(/https?:\/\/[^\s<>"']+/g)].map((m) => m[0].replace(/[.,;:!?)\]]+$/, ''));
}

/** `2024-12-05 14:03 UTC`: unambiguous for any reader, whatever their zone. */
function when(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

function tokenLink(ctx: RenderContext, path: string): string {
  if (!ctx.secret) throw new TemplateProblem(`the link ${path} needs the event's token, and it has none`);
  return `${ctx.appUrl}${path}?token=${encodeURIComponent(ctx.secret)}`;
}

type Template<T extends OutboxEventType> = (p: OutboxEventPayloads[T], ctx: RenderContext, brand: string) => MailContent;

const IGNORE = 'If you did not ask for this, you can ignore this message.';
const NOT_YOU = 'If this was not you, reset your password and review your sessions now.';

/**
 * Every event type names its template, or null for an event that sends no mail: a new event
 * type that says neither does not compile.
 */
const TEMPLATES: { [T in OutboxEventType]: Template<T> | null } = {
  'account.email_verification_requested': (p, ctx, brand) => ({
    to: p.email,
    subject: `Verify your email address for ${brand}`,
    heading: 'Verify your email address',
    paragraphs: [`Confirm that ${p.email} is your address to finish setting up your ${brand} account.`, 'The link works once.', IGNORE],
    action: { label: 'Verify email address', url: tokenLink(ctx, '/verify-email') },
  }),
  'account.email_change_requested': (p, ctx, brand) => ({
    to: p.newEmail,
    subject: `Confirm your new email address for ${brand}`,
    heading: 'Confirm your new email address',
    paragraphs: [`Your ${brand} account asked to use ${p.newEmail} from now on. The change takes effect once you confirm it.`, IGNORE],
    action: { label: 'Confirm new address', url: tokenLink(ctx, '/confirm-email') },
  }),
  'account.email_changed': (p, ctx, brand) => ({
    to: p.oldEmail,
    subject: `Your ${brand} email address was changed`,
    heading: 'Your email address was changed',
    paragraphs: [`Your ${brand} account now uses ${p.newEmail} instead of ${p.oldEmail}. Messages go to the new address from now on.`, NOT_YOU],
    action: { label: 'Review account security', url: `${ctx.appUrl}/settings/security` },
  }),
  'account.password_reset_requested': (p, ctx, brand) => ({
    to: p.email,
    subject: `Reset your ${brand} password`,
    heading: 'Reset your password',
    paragraphs: [`Someone asked to reset the password of the ${brand} account of ${p.email}.`, 'The link works once, within 30 minutes. Resetting signs you out everywhere.', IGNORE],
    action: { label: 'Choose a new password', url: tokenLink(ctx, '/reset-password') },
  }),
  'account.password_changed': (p, ctx, brand) => ({
    to: p.email,
    subject: `Your ${brand} password was changed`,
    heading: 'Your password was changed',
    paragraphs: [`The password of the ${brand} account of ${p.email} was just changed.`, NOT_YOU],
    action: { label: 'Review account security', url: `${ctx.appUrl}/settings/security` },
  }),
  'account.new_sign_in': (p, ctx, brand) => ({
    to: p.email,
    subject: `New sign-in to your ${brand} account`,
    heading: 'New sign-in to your account',
    paragraphs: [
      `Your ${brand} account was signed in to from a device we had not seen before.`,
      `Device: ${p.device}. Network: ${p.ipPrefix ?? 'unknown'}. Time: ${when(p.at)}.`,
      NOT_YOU,
    ],
    action: { label: 'Review your sessions', url: `${ctx.appUrl}/settings/security` },
  }),
  'account.export_ready': (p, ctx, brand) => ({
    to: p.email,
    subject: `Your ${brand} data export is ready`,
    heading: 'Your data export is ready',
    paragraphs: [`The export of your ${brand} data is ready to download until ${when(p.expiresAt)}.`, 'Sign in to download it.'],
    action: { label: 'Download your export', url: `${ctx.appUrl}/settings/export?export=${encodeURIComponent(p.exportId)}` },
  }),
  'account.deletion_scheduled': (p, ctx, brand) => ({
    to: p.email,
    subject: `Your ${brand} account is scheduled for deletion`,
    heading: 'Your account is scheduled for deletion',
    paragraphs: [
      `Your ${brand} account and the workspace only you own will be deleted for good on ${when(p.purgeAt)}.`,
      'Changed your mind? Sign in before then and the deletion is cancelled.',
    ],
    action: { label: 'Sign in to keep your account', url: `${ctx.appUrl}/login` },
  }),
  'organisation.invitation_created': (p, ctx, brand) => ({
    to: p.email,
    subject: `${p.inviterName} invited you to join ${p.workspaceName} on ${brand}`,
    heading: `Join ${p.workspaceName}`,
    paragraphs: [`${p.inviterName} invited you to join the workspace ${p.workspaceName} on ${brand} as ${p.role}.`, IGNORE],
    action: { label: 'Accept the invitation', url: tokenLink(ctx, '/invitations/accept') },
  }),
  'billing.provider_event': null,
  'engagement.message_received': null,
  'engagement.reply_due': null,
  'credits.low': (p, ctx, brand) => ({
    to: null,
    subject: p.threshold === 0 ? `Your ${brand} monthly credits are used up` : `Your ${brand} monthly credits are running low`,
    heading: p.threshold === 0 ? 'Your monthly credits are used up' : `${p.threshold}% of your monthly credits left`,
    paragraphs: [
      `Your workspace has ${p.remaining} of this period's ${p.granted} plan credits left, and ${p.balance} credits in all.`,
      p.resetsAt ? `Your plan's credits renew on ${when(p.resetsAt)}. Purchased credits never expire.` : 'Purchased credits never expire.',
      'Buy a credit pack or move to a larger plan to keep generating without a pause.',
    ],
    action: { label: 'Get more credits', url: `${ctx.appUrl}/settings/billing` },
  }),
  'billing.payment_failed': (p, ctx, brand) => ({
    to: null,
    subject: `Your ${brand} payment failed`,
    heading: 'Your payment failed',
    paragraphs: [
      `We could not collect ${money(p.amount, p.currency)} for your ${p.plan} plan. Your features stay on while we retry the payment.`,
      'Update your card or pay the invoice to keep your plan.',
    ],
    action: { label: 'Pay the invoice', url: p.hostedUrl && /^https?:\/\//.test(p.hostedUrl) ? p.hostedUrl : `${ctx.appUrl}/settings/billing` },
  }),
  // Customer webhook events send no mail (credits.low above is both).
  'job.completed': null,
  'job.failed': null,
  'content.ready': null,
  'content.approved': null,
  'post.published': null,
  'post.failed': null,
  'lora.ready': null,
  'lora.failed': null,
  'voice.ready': null,
  'member.added': null,
  'member.removed': null,
};

/** `$29.00`, `€9.00`: an amount in the currency's smallest unit, for a reader. */
function money(amount: number, currency: string): string {
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency: currency.toUpperCase() }).format(amount / 100);
  } catch {
    return `${(amount / 100).toFixed(2)} ${currency.toUpperCase()}`;
  }
}

/** The event types that send mail. */
export const MAIL_EVENT_TYPES = (Object.keys(TEMPLATES) as OutboxEventType[]).filter((t) => TEMPLATES[t] !== null);

/** Renders the message of an event: plain text and HTML, every interpolated value escaped in the HTML. */
export function renderMail<T extends OutboxEventType>(type: T, payload: OutboxEventPayloads[T], ctx: RenderContext): RenderedMail {
  const template = TEMPLATES[type] as Template<T> | null | undefined;
  if (!template) throw new TemplateProblem(`no template for ${type}`);
  const brand = ctx.branding?.displayName ?? PRODUCT_NAME;
  const content = template(payload, ctx, brand);
  const footer = footerOf(ctx.branding, brand);
  const text = [
    content.heading,
    '',
    ...content.paragraphs.flatMap((p) => [p, '']),
    ...(content.action ? [`${content.action.label}: ${content.action.url}`, ''] : []),
    '-- ',
    footer,
    '',
  ].join('\n');
  return {
    to: content.to,
    subject: headerSafe(content.subject),
    text,
    html: htmlOf(content, ctx.branding, footer),
    links: content.action ? [content.action.url] : [],
  };
}

function footerOf(branding: MailLook | null, brand: string): string {
  const support = branding?.supportEmail ? ` Questions? Write to ${branding.supportEmail}.` : '';
  return branding ? `Sent by ${brand} (powered by ${PRODUCT_NAME}).${support}` : `Sent by ${PRODUCT_NAME}.`;
}

function htmlOf(content: MailContent, branding: MailLook | null, footer: string): string {
  const color = branding?.primaryColor && COLOR.test(branding.primaryColor) ? branding.primaryColor : DEFAULT_PRIMARY;
  const brand = branding?.displayName ?? PRODUCT_NAME;
  const logo = branding?.logoUrl
    ? `<img src="${escapeHtml(branding.logoUrl)}" alt="${escapeHtml(brand)}" height="40" style="display:block;height:40px;margin:0 0 16px">`
    : `<div style="font-size:18px;font-weight:bold;color:${color};margin:0 0 16px">${escapeHtml(brand)}</div>`;
  const paragraphs = content.paragraphs.map((p) => `<p style="margin:0 0 12px;line-height:1.5">${escapeHtml(p)}</p>`).join('');
  const action = content.action
    ? `<p style="margin:20px 0"><a href="${escapeHtml(content.action.url)}" style="background:${color};color:#ffffff;padding:12px 20px;border-radius:6px;text-decoration:none;display:inline-block">${escapeHtml(content.action.label)}</a></p>` +
      `<p style="margin:0 0 12px;font-size:12px;color:#6e6e73;word-break:break-all">Or open this address: ${escapeHtml(content.action.url)}</p>`
    : '';
  return [
    '<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">',
    `<title>${escapeHtml(content.subject)}</title></head>`,
    '<body style="margin:0;padding:0;background:#f5f5f7;font-family:Arial,Helvetica,sans-serif;color:#1d1d1f">',
    '<table role="presentation" width="100%" cellpadding="0" cellspacing="0"><tr><td align="center" style="padding:24px">',
    `<table role="presentation" width="560" cellpadding="0" cellspacing="0" style="max-width:560px;background:#ffffff;border-radius:8px;border-top:4px solid ${color}">`,
    `<tr><td style="padding:24px">${logo}<h1 style="font-size:20px;margin:0 0 16px">${escapeHtml(content.heading)}</h1>${paragraphs}${action}</td></tr>`,
    `<tr><td style="padding:16px 24px;border-top:1px solid #e5e5ea;font-size:12px;color:#6e6e73">${escapeHtml(footer)}</td></tr>`,
    '</table></td></tr></table></body></html>',
  ].join('\n');
}
