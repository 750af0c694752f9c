import { Body, Controller, Get, Param, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { pageBody, pageRequest, type Caller } from '../../../core/index.js';
import { CurrentCaller, MinRole, Product } from '../../../platform/auth/index.js';
import { ApiErrors, IdParam } from '../../../platform/http/index.js';
import { RevenueService } from '../application/revenue.service.js';
import { RevenueEntryEnvelope, RevenueListBody, RevenueSummaryBody, toRevenueBody, toSummaryBody } from './dto/monetization.body.js';
import { CreateRevenueDto, RevenueListQuery, SummaryQuery } from './dto/revenue.dto.js';

const CharacterId = () => new IdParam('char', 'Character');

/** What the characters earn (docs/monetization.md): editors record, every member reads. Amounts in minor units. */
@ApiTags('monetization')
@Controller()
@Product()
@ApiErrors('unauthorized', 'session_required', 'validation_failed')
export class RevenueController {
  constructor(private readonly revenue: RevenueService) {}

  @Get('characters/:id/revenue')
  @MinRole('viewer')
  @ApiOperation({ operationId: 'listCharacterRevenue', summary: 'The character’s revenue entries, newest occurred_at first, optionally within [from, to).' })
  @ApiOkResponse({ type: RevenueListBody })
  @ApiErrors('not_found')
  async list(@CurrentCaller() caller: Caller, @Param('id', CharacterId()) id: string, @Query() q: RevenueListQuery) {
    const page = await this.revenue.list(caller.workspaceId, id, { from: q.from, to: q.to }, pageRequest(q.page, q.page_size));
    return pageBody('revenue_entries', { ...page, items: page.items.map(toRevenueBody) });
  }

  @Post('characters/:id/revenue')
  @MinRole('editor')
  @ApiOperation({ operationId: 'recordCharacterRevenue', summary: 'Record an amount the character earned, in the workspace’s currency.' })
  @ApiCreatedResponse({ type: RevenueEntryEnvelope })
  @ApiErrors('not_found')
  async record(@CurrentCaller() caller: Caller, @Param('id', CharacterId()) id: string, @Body() body: CreateRevenueDto): Promise<RevenueEntryEnvelope> {
    const entry = await this.revenue.record(caller, id, {
      source: body.source, amount: body.amount, currency: body.currency, occurredAt: body.occurred_at, note: body.note, linkId: body.link_id,
    });
    return { revenue_entry: toRevenueBody(entry) };
  }

  @Get('revenue/summary')
  @MinRole('viewer')
  @ApiOperation({ operationId: 'getRevenueSummary', summary: 'Revenue per source and per character over [from, to) (default the last 90 days), with each character’s clicks.' })
  @ApiOkResponse({ type: RevenueSummaryBody })
  async summary(@CurrentCaller() caller: Caller, @Query() q: SummaryQuery): Promise<RevenueSummaryBody> {
    return toSummaryBody(await this.revenue.summary(caller.workspaceId, { from: q.from, to: q.to }));
  }
}
