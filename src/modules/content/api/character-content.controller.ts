import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiAcceptedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { pageRequest, type Caller } from '../../../core/index.js';
import { CurrentCaller, Product, MinRole } from '../../../platform/auth/index.js';
import { ApiErrors, IdParam } from '../../../platform/http/index.js';
import { MediaUrls } from '../../../platform/storage/index.js';
import { ContentGenerationService } from '../application/content-generation.service.js';
import { ContentQueryService } from '../application/content-query.service.js';
import { toJobBody } from '../../../platform/queue/index.js';
import { CalendarDoc, ItemListDoc, JobEnvelope, toCalendarBody, toItemPageBody } from './dto/content-item.body.js';
import { CharacterCalendarQueryDto, CharacterQueueQueryDto, toQueueFilter } from './dto/queries.dto.js';
import { toGenerateWeekRequest, WeekPlanFieldsDto } from './dto/week.dto.js';

const CharacterId = () => new IdParam('char', 'Character');

/** The character-scoped mirrors of the queue, the calendar and week planning. */
@ApiTags('content')
@Controller(['characters/:id/content', 'influencers/:id/content'])
export class CharacterContentController {
  constructor(
    private readonly generation: ContentGenerationService,
    private readonly query: ContentQueryService,
    private readonly urls: MediaUrls,
  ) {}

  @Get('queue')
  @Product()
  @MinRole('viewer')
  @ApiOperation({ operationId: 'getCharacterContentQueue', summary: 'The character’s content queue (as GET /content/queue?character_id=).' })
  @ApiOkResponse({ type: ItemListDoc })
  @ApiErrors('unauthorized', 'session_required', 'not_found')
  async queue(@CurrentCaller() caller: Caller, @Param('id', CharacterId()) id: string, @Query() q: CharacterQueueQueryDto) {
    return toItemPageBody(await this.query.queue(caller.workspaceId, toQueueFilter(id, q), pageRequest(q.page, q.page_size)), this.urls);
  }

  @Get('calendar')
  @Product()
  @MinRole('viewer')
  @ApiOperation({ operationId: 'getCharacterContentCalendar', summary: 'The character’s calendar, in its time zone (as GET /content/calendar?character_id=).' })
  @ApiOkResponse({ type: CalendarDoc })
  @ApiErrors('unauthorized', 'session_required', 'not_found')
  async calendar(@CurrentCaller() caller: Caller, @Param('id', CharacterId()) id: string, @Query() q: CharacterCalendarQueryDto) {
    return toCalendarBody(await this.query.calendar(caller.workspaceId, { from: q.from, to: q.to, characterId: id }), this.urls);
  }

  @Post('generate-week')
  @HttpCode(202)
  @Product()
  @MinRole('editor')
  @ApiOperation({ operationId: 'generateCharacterWeek', summary: 'Plan a week for the character (as POST /content/generate-week).' })
  @ApiAcceptedResponse({ type: JobEnvelope })
  @ApiErrors('unauthorized', 'session_required', 'not_found', 'insufficient_credits')
  async generateWeek(@CurrentCaller() caller: Caller, @Param('id', CharacterId()) id: string, @Body() dto: WeekPlanFieldsDto) {
    return { job: toJobBody(await this.generation.generateWeek(caller.workspaceId, toGenerateWeekRequest(id, dto))) };
  }
}
