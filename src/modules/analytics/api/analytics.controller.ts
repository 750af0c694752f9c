import { Controller, Get, HttpCode, Post, Query, Res } from '@nestjs/common';
import { ApiAcceptedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { AppError, pageBody, pageRequest, type Caller } from '../../../core/index.js';
import { CurrentCaller, MinRole, Product } from '../../../platform/auth/index.js';
import { ApiErrors } from '../../../platform/http/index.js';
import { toJobBody } from '../../../platform/queue/index.js';
import { AnalyticsService } from '../application/analytics.service.js';
import { OverviewDoc, PostsPageDoc, SyncJobEnvelope, toOverviewBody, toPostMetricsBody } from './dto/analytics.body.js';
import { characterOf, OverviewQuery, platformOf, PostsQuery, sortOf } from './dto/analytics.query.js';

/** Analytics (contract §15): reads for every member, an on-demand sync for editors. */
@ApiTags('analytics')
@Controller('analytics')
export class AnalyticsController {
  constructor(private readonly analytics: AnalyticsService) {}

  @Get('overview')
  @Product()
  @MinRole('viewer')
  @ApiOperation({ operationId: 'getAnalyticsOverview', summary: 'Totals, follower curve, top posts and per-platform figures over a range of days (default the last 30, at most 366).' })
  @ApiOkResponse({ type: OverviewDoc })
  @ApiErrors('unauthorized', 'session_required', 'validation_failed', 'not_found')
  async overview(@CurrentCaller() caller: Caller, @Query() q: OverviewQuery) {
    const overview = await this.analytics.overview(caller.workspaceId, { characterId: characterOf(q.character_id), from: q.from, to: q.to });
    return toOverviewBody(overview);
  }

  @Get('posts')
  @Product()
  @MinRole('viewer')
  @ApiOperation({ operationId: 'listPostAnalytics', summary: 'The latest metrics of each published post in range, sorted and paged.' })
  @ApiOkResponse({ type: PostsPageDoc })
  @ApiErrors('unauthorized', 'session_required', 'validation_failed', 'not_found')
  async posts(@CurrentCaller() caller: Caller, @Query() q: PostsQuery) {
    const page = await this.analytics.posts(
      caller.workspaceId,
      { characterId: characterOf(q.character_id), platform: platformOf(q.platform), from: q.from, to: q.to, sort: sortOf(q.sort) },
      pageRequest(q.page, q.page_size),
    );
    return pageBody('posts', { ...page, items: page.items.map(toPostMetricsBody) });
  }

  @Post('sync')
  @HttpCode(202)
  @Product()
  @MinRole('editor')
  @ApiOperation({ summary: 'Sync every connection of the workspace now: one sync_analytics job; at most once per 10 minutes (429 with Retry-After).' })
  @ApiAcceptedResponse({ type: SyncJobEnvelope })
  @ApiErrors('unauthorized', 'session_required', 'forbidden', 'rate_limited')
  async sync(@CurrentCaller() caller: Caller, @Res({ passthrough: true }) res: Response) {
    try {
      return { job: toJobBody(await this.analytics.requestSync(caller.workspaceId)) };
    } catch (err) {
      const details = err instanceof AppError && err.code === 'rate_limited' && !Array.isArray(err.details) ? err.details : undefined;
      if (typeof details?.retry_after === 'number') res.setHeader('Retry-After', String(details.retry_after));
      throw err;
    }
  }
}
