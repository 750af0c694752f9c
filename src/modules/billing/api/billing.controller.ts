import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { pageBody, type Caller } from '../../../core/index.js';
import { CurrentCaller, Product, MinRole } from '../../../platform/auth/index.js';
import { ApiErrors, PageQueryDto } from '../../../platform/http/index.js';
import { BillingService } from '../application/billing.service.js';
import { CreditsView, LedgerPageView, ledgerEntryBody } from './dto/ledger-entry.view.js';

@ApiTags('billing')
@Controller('billing')
@ApiErrors('unauthorized', 'session_required', 'rate_limited')
export class BillingController {
  constructor(private readonly billing: BillingService) {}

  @Get('credits')
  @Product()
  @MinRole('viewer')
  @ApiOperation({ summary: "The workspace's credit balance, plan and character limit." })
  @ApiOkResponse({ type: CreditsView })
  async credits(@CurrentCaller() caller: Caller) {
    const s = await this.billing.summary(caller.workspaceId, caller.plan);
    return { balance: s.balance, plan: s.plan, character_limit: s.characterLimit };
  }

  @Get('ledger')
  @Product()
  @MinRole('viewer')
  @ApiOperation({ summary: 'The append-only credit ledger, newest first.' })
  @ApiOkResponse({ type: LedgerPageView })
  async ledger(@CurrentCaller() caller: Caller, @Query() query: PageQueryDto) {
    const page = await this.billing.history(caller.workspaceId, query.page, query.page_size);
    return pageBody('entries', { ...page, items: page.items.map(ledgerEntryBody) });
  }
}
