import { Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Product } from '../../../platform/auth/index.js';
import { ApiErrors } from '../../../platform/http/index.js';
import { BillingReconciliation } from '../application/reconciliation.js';
import { ReconciliationView } from './dto/billing.dto.js';

/** Operators: compare every workspace with a customer at the payment provider with it now (the daily pass, on demand). */
@ApiTags('admin')
@Controller('admin/billing')
@Product({ roles: ['admin'] })
@ApiErrors('unauthorized', 'session_required', 'forbidden', 'rate_limited')
export class AdminBillingController {
  constructor(private readonly reconciliation: BillingReconciliation) {}

  @Post('reconcile')
  @HttpCode(200)
  @ApiOperation({ operationId: 'reconcileBilling', summary: 'Reconcile every workspace with a customer at the payment provider (subscribed, or whose webhooks were lost); drift found is mended, logged and counted.' })
  @ApiOkResponse({ type: ReconciliationView })
  reconcile() {
    return this.reconciliation.reconcile();
  }
}
