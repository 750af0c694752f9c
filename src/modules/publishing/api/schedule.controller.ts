import { Body, Controller, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { pageBody, pageRequest, type Caller } from '../../../core/index.js';
import { CurrentCaller, Product, MinRole } from '../../../platform/auth/index.js';
import { ApiErrors, IdParam } from '../../../platform/http/index.js';
import { Idempotent } from '../../../platform/idempotency/index.js';
import { toScheduledPostBody } from '../application/post-events.js';
import { PublishNowService, type PublishOutcome } from '../application/publish-now.service.js';
import { ScheduleService } from '../application/schedule.service.js';
import { GeneratedScheduleBody, PublishOutcomeBody, ScheduledPostEnvelope, ScheduledPostPageBody } from './dto/publishing.body.js';
import { GenerateScheduleDto, PostQueryDto, toPostChange, toPostQuery, toScheduleStart, UpdatePostDto } from './dto/publishing.dto.js';

export const PostId = () => new IdParam('sch', 'Scheduled post');

export function toPublishOutcomeBody(outcome: PublishOutcome): PublishOutcomeBody {
  return {
    scheduled_post: toScheduledPostBody(outcome.post) as never,
    publish_result: { remote_post_id: outcome.result.remotePostId, media_urls: outcome.result.mediaUrls },
  };
}

/** The posting schedule (contract §8). */
@ApiTags('schedule')
@Controller('schedule')
export class ScheduleController {
  constructor(
    private readonly schedule: ScheduleService,
    private readonly publishing: PublishNowService,
  ) {}

  @Post('generate')
  @Product({ verifiedEmail: true })
  @MinRole('editor')
  @ApiOperation({ summary: "Slots for the character's approved, unscheduled items: good hours of its timezone, 4 h apart per platform." })
  @ApiCreatedResponse({ type: GeneratedScheduleBody })
  @ApiErrors('unauthorized', 'session_required', 'validation_failed', 'not_found', 'integration_not_connected', 'already_scheduled', 'rate_limited')
  async generate(@CurrentCaller() caller: Caller, @Body() dto: GenerateScheduleDto): Promise<GeneratedScheduleBody> {
    const { timezone, posts, slotSources } = await this.schedule.generate(caller.workspaceId, {
      characterId: dto.character_id, startDate: toScheduleStart(dto.start_date), platforms: dto.platforms, days: dto.days ?? 7,
    });
    // `history` once any platform of the plan had enough measured posts to choose its own hours (contract §15).
    const slotSource = Object.values(slotSources).includes('history') ? 'history' : 'defaults';
    return { timezone, slot_source: slotSource, slot_sources: slotSources, scheduledPosts: posts.map(toScheduledPostBody) as never };
  }

  @Get()
  @Product()
  @MinRole('viewer')
  @ApiOperation({ operationId: 'listScheduledPosts', summary: 'Scheduled posts, soonest first; default the pending ones.' })
  @ApiOkResponse({ type: ScheduledPostPageBody })
  @ApiErrors('unauthorized', 'session_required', 'validation_failed', 'rate_limited')
  async list(@CurrentCaller() caller: Caller, @Query() q: PostQueryDto) {
    const page = await this.schedule.list(caller.workspaceId, toPostQuery(q), pageRequest(q.page, q.page_size));
    return pageBody('scheduled_posts', { ...page, items: page.items.map(toScheduledPostBody) });
  }

  @Get('history')
  @Product()
  @MinRole('viewer')
  @ApiOperation({ operationId: 'listPublishingHistory', summary: 'Published, failed and cancelled posts, newest first.' })
  @ApiOkResponse({ type: ScheduledPostPageBody })
  @ApiErrors('unauthorized', 'session_required', 'validation_failed', 'rate_limited')
  async history(@CurrentCaller() caller: Caller, @Query() q: PostQueryDto) {
    const page = await this.schedule.history(caller.workspaceId, toPostQuery(q), pageRequest(q.page, q.page_size));
    return pageBody('scheduled_posts', { ...page, items: page.items.map(toScheduledPostBody) });
  }

  @Get(':id')
  @Product()
  @MinRole('viewer')
  @ApiOperation({ summary: 'A scheduled post of the workspace, in any status (the body of the post.published and post.failed events).' })
  @ApiOkResponse({ type: ScheduledPostEnvelope })
  @ApiErrors('unauthorized', 'session_required', 'not_found', 'rate_limited')
  async get(@CurrentCaller() caller: Caller, @Param('id', PostId()) id: string) {
    return { scheduled_post: toScheduledPostBody(await this.schedule.get(caller.workspaceId, id)) };
  }

  @Patch(':id')
  @Product()
  @MinRole('editor')
  @ApiOperation({ operationId: 'updateScheduledPost', summary: 'Reschedule (scheduled_at) or cancel (status: "cancelled") a pending post.', description: 'A new scheduled_at up to 60 s in the past is taken as now; older is 400. Rescheduling needs the platform connected; cancelling does not.' })
  @ApiOkResponse({ type: ScheduledPostEnvelope })
  @ApiErrors('unauthorized', 'session_required', 'validation_failed', 'not_found', 'integration_not_connected', 'invalid_state_transition', 'rate_limited')
  async update(@CurrentCaller() caller: Caller, @Param('id', PostId()) id: string, @Body() dto: UpdatePostDto) {
    return { scheduled_post: toScheduledPostBody(await this.schedule.update(caller.workspaceId, id, toPostChange(dto))) };
  }

  @Post(':id/publish-now')
  @Product({ verifiedEmail: true })
  @MinRole('editor')
  @Idempotent()
  @HttpCode(200)
  @ApiOperation({ operationId: 'publishScheduledPostNow', summary: 'Publish a pending post at once; the content becomes published and its variants lock.' })
  @ApiOkResponse({ type: PublishOutcomeBody })
  @ApiErrors('unauthorized', 'session_required', 'not_found', 'content_not_approved', 'integration_not_connected', 'invalid_state_transition', 'upstream_failed', 'rate_limited')
  async publishNow(@CurrentCaller() caller: Caller, @Param('id', PostId()) id: string): Promise<PublishOutcomeBody> {
    return toPublishOutcomeBody(await this.publishing.publishNow(caller, id));
  }
}
