import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiAcceptedResponse, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { pageRequest, type Caller } from '../../../core/index.js';
import { toJobBody } from '../../../platform/queue/index.js';
import { CurrentCaller, Product, MinRole } from '../../../platform/auth/index.js';
import { ApiErrors, IdParam } from '../../../platform/http/index.js';
import { MediaUrls } from '../../../platform/storage/index.js';
import { ContentEditingService } from '../application/content-editing.service.js';
import { ContentGenerationService } from '../application/content-generation.service.js';
import { ContentRemoval } from '../application/content-removal.js';
import { ContentQueryService } from '../application/content-query.service.js';
import {
  CalendarDoc,
  ItemAndJobEnvelope,
  ItemEnvelope,
  ItemListDoc,
  JobEnvelope,
  toCalendarBody,
  toItemBody,
  toItemPageBody,
  toOrderedBody,
} from './dto/content-item.body.js';
import { toContentEdit, UpdateContentDto } from './dto/edit.dto.js';
import { GenerateContentDto, toGenerateImageRequest } from './dto/generate.dto.js';
import { CalendarQueryDto, ContentListQueryDto, QueueQueryDto, toContentFilter, toQueueFilter } from './dto/queries.dto.js';
import { GenerateWeekDto, toGenerateWeekRequest } from './dto/week.dto.js';

export const ContentId = () => new IdParam('cnt', 'Content');

/** Content of the caller's workspace: generation, the queue, the calendar and edits. */
@ApiTags('content')
@Controller('content')
export class ContentController {
  constructor(
    private readonly generation: ContentGenerationService,
    private readonly query: ContentQueryService,
    private readonly editing: ContentEditingService,
    private readonly urls: MediaUrls,
    private readonly removal: ContentRemoval,
  ) {}

  @Post('generate')
  @Product()
  @MinRole('editor')
  @ApiOperation({ summary: 'Generate an image post: the item (queued) and its generate_image job. Charged per image.' })
  @ApiCreatedResponse({ type: ItemAndJobEnvelope })
  @ApiErrors('unauthorized', 'session_required', 'not_found', 'insufficient_credits')
  async generate(@CurrentCaller() caller: Caller, @Body() dto: GenerateContentDto) {
    return toOrderedBody(await this.generation.generateImage(caller.workspaceId, toGenerateImageRequest(dto)), this.urls);
  }

  @Post('generate-week')
  @HttpCode(202)
  @Product()
  @MinRole('editor')
  @ApiOperation({ summary: 'Plan a week of posts (posts_per_day × 7) in the background. Paid up front.' })
  @ApiAcceptedResponse({ type: JobEnvelope })
  @ApiErrors('unauthorized', 'session_required', 'not_found', 'insufficient_credits')
  async generateWeek(@CurrentCaller() caller: Caller, @Body() dto: GenerateWeekDto) {
    return { job: toJobBody(await this.generation.generateWeek(caller.workspaceId, toGenerateWeekRequest(dto.character_id, dto))) };
  }

  @Get()
  @Product()
  @MinRole('viewer')
  @ApiOperation({ summary: 'All content of the workspace, newest first; filter by status (comma list), type, platform and character_id.' })
  @ApiOkResponse({ type: ItemListDoc })
  @ApiErrors('unauthorized', 'session_required', 'not_found', 'validation_failed')
  async list(@CurrentCaller() caller: Caller, @Query() q: ContentListQueryDto) {
    return toItemPageBody(await this.query.list(caller.workspaceId, toContentFilter(q), pageRequest(q.page, q.page_size)), this.urls);
  }

  @Get('queue')
  @Product()
  @MinRole('viewer')
  @ApiOperation({ operationId: 'getContentQueue', summary: 'Content waiting for work or review; by planned time, oldest first.' })
  @ApiOkResponse({ type: ItemListDoc })
  @ApiErrors('unauthorized', 'session_required', 'not_found')
  async queue(@CurrentCaller() caller: Caller, @Query() q: QueueQueryDto) {
    return toItemPageBody(await this.query.queue(caller.workspaceId, toQueueFilter(q.character_id, q), pageRequest(q.page, q.page_size)), this.urls);
  }

  @Get('calendar')
  @Product()
  @MinRole('viewer')
  @ApiOperation({ operationId: 'getContentCalendar', summary: 'Planned content by local day (at most 62 days; default this week).' })
  @ApiOkResponse({ type: CalendarDoc })
  @ApiErrors('unauthorized', 'session_required', 'not_found')
  async calendar(@CurrentCaller() caller: Caller, @Query() q: CalendarQueryDto) {
    return toCalendarBody(await this.query.calendar(caller.workspaceId, { from: q.from, to: q.to, characterId: q.character_id }), this.urls);
  }

  @Get(':id')
  @Product()
  @MinRole('viewer')
  @ApiOperation({ summary: 'One content item with its current job.' })
  @ApiOkResponse({ type: ItemEnvelope })
  @ApiErrors('unauthorized', 'session_required', 'not_found')
  async get(@CurrentCaller() caller: Caller, @Param('id', ContentId()) id: string) {
    return { item: toItemBody(await this.query.get(caller.workspaceId, id), this.urls) };
  }

  @Patch(':id')
  @Product()
  @MinRole('editor')
  @ApiOperation({ summary: 'Edit caption, hashtags, call to action, prompt, platform, type or plan. Published items refuse.' })
  @ApiOkResponse({ type: ItemEnvelope })
  @ApiErrors('unauthorized', 'session_required', 'not_found', 'invalid_state_transition')
  async update(@CurrentCaller() caller: Caller, @Param('id', ContentId()) id: string, @Body() dto: UpdateContentDto) {
    return { item: toItemBody(await this.editing.update(caller.workspaceId, id, toContentEdit(dto)), this.urls) };
  }

  @Delete(':id')
  @HttpCode(204)
  @Product()
  @MinRole('editor')
  @ApiOperation({ summary: 'Delete a content item, its posts and its media files (409 while it is queued or generating).' })
  @ApiNoContentResponse()
  @ApiErrors('unauthorized', 'session_required', 'not_found', 'invalid_state_transition')
  async remove(@CurrentCaller() caller: Caller, @Param('id', ContentId()) id: string): Promise<void> {
    await this.removal.delete(caller, id);
  }
}
