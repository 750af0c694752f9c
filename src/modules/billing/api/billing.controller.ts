import { Body, Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AppError, pageBody, type Caller } from '../../../core/index.js';
import { CurrentCaller, Product, MinRole } from '../../../platform/auth/index.js';
import { ApiErrors, PageQueryDto } from '../../../platform/http/index.js';
import { BillingService } from '../application/billing.service.js';
import { SubscriptionService, type CheckoutOutcome } from '../application/subscription.service.js';
import {
  catalogueBody, CatalogueView, CheckoutDto, CheckoutView, CreditsLowBody, invoiceBody, InvoicePageView, InvoicesQuery, subscriptionBody, SubscriptionView, UrlView,
} from './dto/billing.dto.js';
import { CreditsView, LedgerPageView, ledgerEntryBody } from './dto/ledger-entry.view.js';

/**
 * Credits, the plan catalogue and self-serve billing (docs/billing.md). Sessions only: API keys
 * never reach billing. Viewers and editors read; owners and admins pay, change and cancel.
 */
@ApiTags('billing')
@Controller('billing')
@ApiExtraModels(CreditsLowBody)
@ApiErrors('unauthorized', 'session_required', 'rate_limited')
export class BillingController {
  constructor(
    private readonly billing: BillingService,
    private readonly subscriptions: SubscriptionService,
  ) {}

  @Get('plans')
  @Product()
  @MinRole('viewer')
  @ApiOperation({ operationId: 'listPlans', summary: 'The plans (price, monthly credits, limits) and the credit packs.' })
  @ApiErrors('payment_provider_unavailable')
  @ApiOkResponse({ type: CatalogueView })
  async plans() {
    return catalogueBody(await this.billing.catalogue());
  }

  @Get('subscription')
  @Product()
  @MinRole('viewer')
  @ApiOperation({ operationId: 'getSubscription', summary: "The workspace's plan, subscription and both credit buckets (this period's allocation, purchased credits)." })
  @ApiOkResponse({ type: SubscriptionView })
  async subscription(@CurrentCaller() caller: Caller) {
    return subscriptionBody(await this.billing.subscription(caller.workspaceId, caller.plan));
  }

  @Get('invoices')
  @Product()
  @MinRole('viewer')
  @ApiOperation({ operationId: 'listInvoices', summary: "The workspace's invoices, newest first (cursor paging)." })
  @ApiErrors('validation_failed', 'payment_provider_unavailable')
  @ApiOkResponse({ type: InvoicePageView })
  async invoices(@CurrentCaller() caller: Caller, @Query() query: InvoicesQuery) {
    const page = await this.billing.invoices(caller.workspaceId, query.limit ?? 20, query.starting_after);
    return { invoices: page.items.map(invoiceBody), has_more: page.hasMore, next_cursor: page.hasMore ? (page.items.at(-1)?.id ?? null) : null };
  }

  @Post('checkout')
  @HttpCode(200)
  @Product({ verifiedEmail: true })
  @MinRole('admin')
  @ApiOperation({ operationId: 'createCheckout',
    summary: 'Subscribe to a plan or buy a credit pack: answers the hosted checkout page. With a subscription, a plan changes it instead: '
      + 'an upgrade at once (prorated), a downgrade at the period’s end; the current plan takes a pending downgrade back.',
  })
  @ApiErrors('validation_failed', 'insufficient_role', 'email_not_verified', 'plan_unchanged', 'payment_provider_unavailable')
  @ApiOkResponse({ type: CheckoutView })
  async checkout(@CurrentCaller() caller: Caller, @Body() dto: CheckoutDto) {
    if ((dto.plan === undefined) === (dto.pack === undefined)) {
      throw new AppError('validation_failed', 'Give either plan or pack.', [{ field: 'plan', message: 'give either plan (pro, agency) or pack, not both and not neither' }]);
    }
    const outcome: CheckoutOutcome = await this.subscriptions.checkout(caller, dto.plan !== undefined ? { plan: dto.plan } : { pack: dto.pack! });
    if (outcome.kind === 'checkout') return { kind: outcome.kind, url: outcome.url, session_id: outcome.sessionId, subscription: null };
    return { kind: outcome.kind, url: null, session_id: null, subscription: await this.state(caller) };
  }

  @Post('portal')
  @HttpCode(200)
  @Product()
  @MinRole('admin')
  @ApiOperation({ operationId: 'openBillingPortal', summary: "The payment provider's customer portal (cards, invoices, cancel)." })
  @ApiErrors('insufficient_role', 'payment_provider_unavailable')
  @ApiOkResponse({ type: UrlView })
  portal(@CurrentCaller() caller: Caller) {
    return this.subscriptions.portal(caller);
  }

  @Post('subscription/cancel')
  @HttpCode(200)
  @Product()
  @MinRole('admin')
  @ApiOperation({ operationId: 'cancelSubscription', summary: 'Cancel at the end of the period: the plan and its credits stay until then, then the workspace is on Starter.' })
  @ApiErrors('insufficient_role', 'no_subscription', 'payment_provider_unavailable')
  @ApiOkResponse({ type: SubscriptionView })
  async cancel(@CurrentCaller() caller: Caller) {
    await this.subscriptions.setCancelled(caller, true);
    return this.state(caller);
  }

  @Post('subscription/resume')
  @HttpCode(200)
  @Product()
  @MinRole('admin')
  @ApiOperation({ operationId: 'resumeSubscription', summary: 'Take a cancel back before the period ends.' })
  @ApiErrors('insufficient_role', 'no_subscription', 'payment_provider_unavailable')
  @ApiOkResponse({ type: SubscriptionView })
  async resume(@CurrentCaller() caller: Caller) {
    await this.subscriptions.setCancelled(caller, false);
    return this.state(caller);
  }

  /** The state after a change: the plan as it is now (the caller's may predate the change). */
  private async state(caller: Caller) {
    return subscriptionBody(await this.billing.subscription(caller.workspaceId, await this.billing.plan(caller.workspaceId)));
  }

  @Get('credits')
  @Product()
  @MinRole('viewer')
  @ApiOperation({ operationId: 'getCredits', summary: "The workspace's credit balance, plan and character limit." })
  @ApiOkResponse({ type: CreditsView })
  async credits(@CurrentCaller() caller: Caller) {
    const s = await this.billing.summary(caller.workspaceId, caller.plan);
    return { balance: s.balance, plan: s.plan, character_limit: s.characterLimit };
  }

  @Get('ledger')
  @Product()
  @MinRole('viewer')
  @ApiOperation({ operationId: 'listLedgerEntries', summary: 'The append-only credit ledger, newest first.' })
  @ApiOkResponse({ type: LedgerPageView })
  async ledger(@CurrentCaller() caller: Caller, @Query() query: PageQueryDto) {
    const page = await this.billing.history(caller.workspaceId, query.page, query.page_size);
    return pageBody('entries', { ...page, items: page.items.map(ledgerEntryBody) });
  }
}
