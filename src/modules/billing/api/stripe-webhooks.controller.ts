import { Controller, HttpCode, Post, Req } from '@nestjs/common';
import { ApiBody, ApiHeader, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { AppError } from '../../../core/index.js';
import { Open } from '../../../platform/auth/index.js';
import { ApiErrors } from '../../../platform/http/index.js';
import { BillingEventIntake } from '../application/billing-event-intake.js';
import { InvalidEventSignature, PaymentGateway } from '../application/ports/payment-gateway.js';

/**
 * Stripe's webhook endpoint. No bearer token: the `Stripe-Signature` over the raw bytes is the
 * credential (checked by the SDK, 5 minutes' tolerance) before anything is parsed; 401 for a
 * missing, forged or stale one. Each event id counts once; its work runs after commit.
 */
@ApiTags('webhooks')
@Controller('webhooks/stripe')
export class StripeWebhooksController {
  constructor(
    private readonly gateway: PaymentGateway,
    private readonly intake: BillingEventIntake,
  ) {}

  @Post()
  @HttpCode(200)
  @Open({ openLimit: true })
  @ApiOperation({ summary: 'Stripe’s events (checkout, subscriptions, invoices), signed; an event id seen before changes nothing. Called by Stripe, not by clients.' })
  @ApiHeader({ name: 'Stripe-Signature', required: true, description: '`t=<unix seconds>,v1=<hex HMAC-SHA256>`.' })
  @ApiBody({ schema: { type: 'object', description: 'A Stripe event object, up to 1 MiB.' } })
  @ApiOkResponse({ schema: { type: 'object', properties: { received: { type: 'boolean' }, duplicate: { type: 'boolean' } } } })
  @ApiErrors('unauthorized', 'validation_failed', 'rate_limited')
  async receive(@Req() req: Request) {
    if (!Buffer.isBuffer(req.body)) throw new AppError('validation_failed', 'The webhook body must be sent as application/json.');
    const signature = req.headers['stripe-signature'];
    let event;
    try {
      event = this.gateway.parseEvent(req.body, typeof signature === 'string' ? signature : undefined);
    } catch (err) {
      if (err instanceof InvalidEventSignature) throw new AppError('unauthorized', 'The webhook signature could not be verified.');
      throw err;
    }
    const fresh = await this.intake.accept(event);
    return { received: true, duplicate: !fresh };
  }
}
