import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Caller } from '../../../core/index.js';
import { CurrentCaller, PublicApi, MinRole } from '../../../platform/auth/index.js';
import { ApiErrors } from '../../../platform/http/index.js';
import { CreditsView } from './dto/ledger-entry.view.js';
import { BillingService } from '../application/billing.service.js';

@ApiTags('public')
@Controller('public')
export class BillingPublicController {
  constructor(private readonly billing: BillingService) {}

  @Get('credits')
  @PublicApi('credits:read')
  @MinRole('viewer')
  @ApiOperation({ operationId: 'getPublicCredits', summary: "Credit check for an API key's workspace." })
  @ApiErrors('unauthorized', 'api_key_required', 'plan_required', 'insufficient_scope', 'rate_limited')
  @ApiOkResponse({ type: CreditsView })
  async credits(@CurrentCaller() caller: Caller) {
    const s = await this.billing.summary(caller.workspaceId, caller.plan);
    return { balance: s.balance, plan: s.plan };
  }
}
