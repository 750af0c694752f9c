import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Caller } from '../../../core/index.js';
import { CurrentCaller, Product, PublicApi, MinRole } from '../../../platform/auth/index.js';
import { ApiErrors, IdParam } from '../../../platform/http/index.js';
import { Idempotent } from '../../../platform/idempotency/index.js';
import { toScheduledPostBody } from '../application/post-events.js';
import { PublishNowService } from '../application/publish-now.service.js';
import { ScheduleService } from '../application/schedule.service.js';
import { PublishOutcomeBody, ScheduledPostsEnvelope } from './dto/publishing.body.js';
import { PublicPublishDto, ScheduleContentDto } from './dto/publishing.dto.js';
import { toPublishOutcomeBody } from './schedule.controller.js';

/** Scheduling one content item, and the public API's publish. */
@ApiTags('schedule')
@Controller()
export class ContentScheduleController {
  constructor(
    private readonly schedule: ScheduleService,
    private readonly publishing: PublishNowService,
  ) {}

  @Post('content/:id/schedule')
  @Product({ verifiedEmail: true })
  @MinRole('editor')
  @ApiOperation({ summary: "Schedule an approved or published item on its platform, or on the listed ones (one pending post each), each connected.", description: 'scheduled_at up to 60 s in the past is taken as now (published at once); older is 400.' })
  @ApiCreatedResponse({ type: ScheduledPostsEnvelope })
  @ApiErrors('unauthorized', 'session_required', 'validation_failed', 'not_found', 'content_not_approved', 'integration_not_connected', 'already_scheduled', 'rate_limited')
  async scheduleContent(@CurrentCaller() caller: Caller, @Param('id', new IdParam('cnt', 'Content')) id: string, @Body() dto: ScheduleContentDto): Promise<ScheduledPostsEnvelope> {
    const posts = await this.schedule.scheduleContent(caller.workspaceId, id, { scheduledAt: new Date(dto.scheduled_at), platforms: dto.platforms });
    return { scheduled_posts: posts.map(toScheduledPostBody) as never };
  }

  @Post('public/publish')
  @PublicApi('content:publish')
  @MinRole('editor')
  @HttpCode(200)
  @Idempotent()
  @ApiOkResponse({ type: PublishOutcomeBody })
  @ApiOperation({ operationId: 'publishContent', summary: 'Create (or move to now) the pending post of approved content on a platform, and publish it at once.' })
  @ApiErrors('unauthorized', 'api_key_required', 'plan_required', 'insufficient_scope', 'validation_failed', 'not_found', 'content_not_approved', 'integration_not_connected', 'invalid_state_transition', 'upstream_failed', 'rate_limited')
  async publish(@CurrentCaller() caller: Caller, @Body() dto: PublicPublishDto): Promise<PublishOutcomeBody> {
    return toPublishOutcomeBody(await this.publishing.publishContent(caller, dto.content_id, dto.platform));
  }
}
