import { Controller, Get, Param, Post, Redirect, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiProduces, ApiSeeOtherResponse, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { AppConfig } from '../../../config/index.js';
import { AppError } from '../../../core/index.js';
import { Open } from '../../../platform/auth/index.js';
import { ApiErrors } from '../../../platform/http/index.js';
import { BillingEventIntake } from '../application/billing-event-intake.js';
import { PaymentGateway, type RemoteInvoice, type RemoteSubscription } from '../application/ports/payment-gateway.js';
import { isPackId, PACKS } from '../domain/catalogue.js';
import {
  isSandboxId, SANDBOX_PAGES_PATH, SandboxGateway, successRedirect, type SandboxCheckoutView, type SandboxItem, type SandboxPortalView,
} from '../infrastructure/sandbox-gateway.js';

const CHECKOUT = { name: 'checkoutToken', description: 'The checkout session id (`cs_sbx_…`): the page\'s only credential.' };
const PORTAL = { name: 'portalToken', description: 'The portal session id (`bps_sbx_…`, one hour): the page\'s only credential.' };

/**
 * The offline sandbox's hosted pages, standing in for Stripe Checkout and the customer portal when
 * no `STRIPE_SECRET_KEY` is set. No session: the id in the path is the credential, as on Stripe's
 * pages (the path parameters are named `…Token` so logs redact them). Paying and cancelling here
 * make the events Stripe would send, into the same intake. Every route answers 404 in production
 * and when the gateway is Stripe.
 */
@ApiTags('billing')
@Controller(SANDBOX_PAGES_PATH)
export class BillingSandboxController {
  constructor(
    private readonly gateway: PaymentGateway,
    private readonly intake: BillingEventIntake,
    private readonly config: AppConfig,
  ) {}

  @Get('checkout/:checkoutToken')
  @Open({ authLimit: true })
  @ApiParam(CHECKOUT)
  @ApiOperation({ operationId: 'getSandboxCheckout', summary: 'Billing sandbox only: the hosted checkout page (what is bought, its price, Pay and Cancel). No money moves.' })
  @ApiProduces('text/html')
  @ApiOkResponse({ description: 'The page.' })
  @ApiErrors('not_found', 'rate_limited')
  async checkout(@Param('checkoutToken') id: string, @Res({ passthrough: true }) res: Response): Promise<string> {
    const gateway = this.sandbox();
    const view = isSandboxId('cs', id) ? await gateway.checkoutView(id) : null;
    if (!view) throw AppError.notFound('Checkout session');
    sendsPage(res, [gateway.pagesUrl(), view.successUrl]);
    return checkoutPage(view, `${gateway.pagesUrl()}/checkout/${id}/complete`);
  }

  @Post('checkout/:checkoutToken/complete')
  @Open({ authLimit: true })
  @Redirect()
  @ApiParam(CHECKOUT)
  @ApiOperation({ operationId: 'completeSandboxCheckout', summary: 'Billing sandbox only: pays the checkout (the Pay button), then 303 to its success URL; a second time pays nothing again.' })
  @ApiSeeOtherResponse({ description: 'To the success URL, with the session id.' })
  @ApiErrors('not_found', 'rate_limited')
  async complete(@Param('checkoutToken') id: string): Promise<{ url: string; statusCode: number }> {
    const gateway = this.sandbox();
    const view = isSandboxId('cs', id) ? await gateway.checkoutView(id) : null;
    if (!view) throw AppError.notFound('Checkout session');
    for (const event of await gateway.complete(id)) await this.intake.accept(event);
    return { url: successRedirect(view.successUrl, id), statusCode: 303 };
  }

  @Get('portal/:portalToken')
  @Open({ authLimit: true })
  @ApiParam(PORTAL)
  @ApiOperation({ operationId: 'getSandboxPortal', summary: 'Billing sandbox only: the hosted customer portal (the subscription, cancel at period end or resume, the invoices).' })
  @ApiProduces('text/html')
  @ApiOkResponse({ description: 'The page.' })
  @ApiErrors('not_found', 'rate_limited')
  async portal(@Param('portalToken') id: string, @Res({ passthrough: true }) res: Response): Promise<string> {
    const gateway = this.sandbox();
    const view = isSandboxId('bps', id) ? await gateway.portalView(id) : null;
    if (!view) throw AppError.notFound('Portal session');
    sendsPage(res, [gateway.pagesUrl()]);
    return portalPage(view, `${gateway.pagesUrl()}/portal/${id}`);
  }

  @Post('portal/:portalToken/cancel')
  @Open({ authLimit: true })
  @Redirect()
  @ApiParam(PORTAL)
  @ApiOperation({ operationId: 'cancelSandboxSubscription', summary: 'Billing sandbox only: cancels the subscription at the period\'s end, then 303 back to the portal page.' })
  @ApiSeeOtherResponse({ description: 'Back to the portal page.' })
  @ApiErrors('not_found', 'rate_limited')
  cancel(@Param('portalToken') id: string): Promise<{ url: string; statusCode: number }> {
    return this.setCancelAtPeriodEnd(id, true);
  }

  @Post('portal/:portalToken/resume')
  @Open({ authLimit: true })
  @Redirect()
  @ApiParam(PORTAL)
  @ApiOperation({ operationId: 'resumeSandboxSubscription', summary: 'Billing sandbox only: keeps a subscription set to cancel at the period\'s end, then 303 back to the portal page.' })
  @ApiSeeOtherResponse({ description: 'Back to the portal page.' })
  @ApiErrors('not_found', 'rate_limited')
  resume(@Param('portalToken') id: string): Promise<{ url: string; statusCode: number }> {
    return this.setCancelAtPeriodEnd(id, false);
  }

  /** The gateway's events of the change reach the intake through its `onEvents`. */
  private async setCancelAtPeriodEnd(id: string, cancel: boolean): Promise<{ url: string; statusCode: number }> {
    const gateway = this.sandbox();
    const session = isSandboxId('bps', id) ? await gateway.portalSession(id) : null;
    if (!session) throw AppError.notFound('Portal session');
    const subscription = await gateway.findSubscription(session.customerId);
    if (subscription) await gateway.setCancelAtPeriodEnd(subscription, cancel);
    return { url: `${gateway.pagesUrl()}/portal/${id}`, statusCode: 303 };
  }

  /** The gateway as the sandbox; 404 in production or when payments go to Stripe. */
  private sandbox(): SandboxGateway {
    if (this.config.production || this.gateway.mode !== 'sandbox' || !(this.gateway instanceof SandboxGateway)) throw AppError.notFound('Route');
    return this.gateway;
  }
}

/**
 * Headers of a hosted page: HTML, never cached, no referrer (the path holds the credential), and a
 * policy that allows inline styles and forms that post to the pages (`formTargets`: where their
 * redirects lead too, which browsers check against `form-action`) and nothing else.
 */
function sendsPage(res: Response, formTargets: string[]): void {
  const origins = new Set(["'self'"]);
  for (const target of formTargets) {
    const origin = originOf(target);
    if (origin) origins.add(origin);
  }
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('Content-Security-Policy', `default-src 'none'; style-src 'unsafe-inline'; form-action ${[...origins].join(' ')}; base-uri 'none'; frame-ancestors 'none'`);
}

function originOf(url: string): string | null {
  try {
    const u = new URL(url);
    return u.protocol === 'https:' || u.protocol === 'http:' ? u.origin : null;
  } catch {
    return null;
  }
}

const STYLE = [
  'body{font-family:system-ui,-apple-system,sans-serif;background:#f5f5f7;color:#1d1d1f;margin:0;padding:32px 16px}',
  'main{max-width:560px;margin:0 auto;background:#fff;border-radius:12px;padding:28px;box-shadow:0 1px 3px rgba(0,0,0,.08)}',
  '.sandbox{display:inline-block;background:#fff4ce;color:#7a5b00;border-radius:6px;padding:4px 10px;font-size:13px;margin:0 0 16px}',
  '.price{font-size:28px;font-weight:600;margin:8px 0 24px}',
  'button{background:#0071e3;color:#fff;border:0;border-radius:8px;padding:12px 22px;font-size:16px;cursor:pointer}',
  'table{border-collapse:collapse;width:100%;font-size:14px}th,td{text-align:left;padding:6px 8px;border-bottom:1px solid #e5e5ea}',
  'dt{color:#6e6e73;font-size:13px}dd{margin:0 0 10px}a{color:#0071e3}',
].join('');

function escapeHtml(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

/** A link target: only http(s) URLs, escaped. */
function href(url: string): string {
  return escapeHtml(originOf(url) ? url : '#');
}

function layout(title: string, body: string): string {
  return [
    '<!doctype html><html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex">',
    `<title>${escapeHtml(title)}</title><style>${STYLE}</style></head>`,
    `<body><main><p class="sandbox">Sandbox: no money moves</p>${body}</main></body></html>`,
  ].join('');
}

/** An amount in the currency's smallest unit, as people read it (`$29.00`). */
function money(amount: number, currency: string): string {
  try {
    return new Intl.NumberFormat('en-US', { style: 'currency', currency: currency.toUpperCase() }).format(amount / 100);
  } catch {
    return `${(amount / 100).toFixed(2)} ${currency.toUpperCase()}`;
  }
}

function itemName(item: SandboxItem): string {
  if (isPackId(item)) return `${PACKS[item].credits} credits`;
  return `${item.charAt(0).toUpperCase()}${item.slice(1)} plan`;
}

function day(date: Date): string {
  return date.toISOString().slice(0, 10);
}

function checkoutPage(view: SandboxCheckoutView, completeUrl: string): string {
  const price = `${money(view.amount, view.currency)}${view.interval ? ` per ${view.interval}` : ''}`;
  const what = view.mode === 'subscription' ? `Subscribe to the ${itemName(view.item)}` : `Buy ${itemName(view.item)}`;
  const action = view.complete
    ? `<p>This checkout is paid.</p><p><a href="${href(successRedirect(view.successUrl, view.id))}">Continue</a></p>`
    : `<form method="post" action="${escapeHtml(completeUrl)}"><button type="submit">Pay ${escapeHtml(money(view.amount, view.currency))}</button></form>`
      + `<p><a href="${href(view.cancelUrl)}">Cancel</a></p>`;
  return layout('Checkout (sandbox)', `<h1>${escapeHtml(what)}</h1><p class="price">${escapeHtml(price)}</p>${action}`);
}

function subscriptionSection(sub: RemoteSubscription | null, portalUrl: string): string {
  if (!sub) return '<p>No subscription.</p>';
  const rows: Array<[string, string]> = [
    ['Plan', sub.plan ? itemName(sub.plan) : 'Unknown plan'],
    ['Status', sub.status],
    ['Current period ends', day(sub.currentPeriodEnd)],
    ['Cancels at period end', sub.cancelAtPeriodEnd ? 'Yes' : 'No'],
  ];
  if (sub.pendingPlan) rows.push(['Changes at period end to', itemName(sub.pendingPlan)]);
  const list = `<dl>${rows.map(([k, v]) => `<dt>${escapeHtml(k)}</dt><dd>${escapeHtml(v)}</dd>`).join('')}</dl>`;
  const [path, label] = sub.cancelAtPeriodEnd ? ['resume', 'Resume'] : ['cancel', 'Cancel at period end'];
  return `${list}<form method="post" action="${escapeHtml(`${portalUrl}/${path}`)}"><button type="submit">${label}</button></form>`;
}

function invoiceSection(invoices: RemoteInvoice[]): string {
  if (invoices.length === 0) return '<h2>Invoices</h2><p>No invoices yet.</p>';
  const rows = invoices
    .map((i) => `<tr><td>${escapeHtml(i.number ?? i.id)}</td><td>${day(i.createdAt)}</td><td>${escapeHtml(money(i.amount, i.currency))}</td><td>${escapeHtml(i.status)}</td></tr>`)
    .join('');
  return `<h2>Invoices</h2><table><thead><tr><th>Number</th><th>Date</th><th>Amount</th><th>Status</th></tr></thead><tbody>${rows}</tbody></table>`;
}

function portalPage(view: SandboxPortalView, portalUrl: string): string {
  return layout(
    'Billing (sandbox)',
    `<h1>Billing</h1>${subscriptionSection(view.subscription, portalUrl)}${invoiceSection(view.invoices)}<p><a href="${href(view.returnUrl)}">Back</a></p>`,
  );
}
