import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiAcceptedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { pageBody, pageRequest, type Caller } from '../../../core/index.js';
import { CurrentCaller, Product, MinRole } from '../../../platform/auth/index.js';
import { ApiErrors, IdParam, PageQueryDto } from '../../../platform/http/index.js';
import { toJobBody } from '../../../platform/queue/index.js';
import { MediaUrls } from '../../../platform/storage/index.js';
import { TalkingHeadService, type StartedGeneration } from '../application/talking-head.service.js';
import { GenerationEnvelope, GenerationListDoc, GenerationStartedDoc, toGenerationBody } from './dto/talking-head.body.js';
import { TalkingHeadGenerateDto, TalkingHeadPreviewDto } from './dto/talking-head.dto.js';

const CharacterId = () => new IdParam('char', 'Character');
const REFUSALS = ['unauthorized', 'session_required', 'not_found', 'validation_failed', 'invalid_state_transition', 'reference_image_required', 'insufficient_credits'] as const;

/** Talking heads (contract §12). `/influencers` answers alike. */
@ApiTags('talking-head')
@Controller()
export class TalkingHeadController {
  constructor(
    private readonly talkingHeads: TalkingHeadService,
    private readonly urls: MediaUrls,
  ) {}

  @Post(['characters/:id/talking-head/preview', 'influencers/:id/talking-head/preview'])
  @HttpCode(202)
  @Product()
  @MinRole('editor')
  @ApiOperation({ summary: 'A short talking head (script ≤ 200; 2 credits): needs talking_head_enabled and a primary reference image.' })
  @ApiAcceptedResponse({ type: GenerationStartedDoc })
  @ApiErrors(...REFUSALS)
  async preview(@CurrentCaller() caller: Caller, @Param('id', CharacterId()) id: string, @Body() dto: TalkingHeadPreviewDto) {
    return this.started(await this.talkingHeads.start(caller.workspaceId, id, { kind: 'preview', script: dto.script, aspectRatio: '9:16' }));
  }

  @Post(['characters/:id/talking-head/generate', 'influencers/:id/talking-head/generate'])
  @HttpCode(202)
  @Product()
  @MinRole('editor')
  @ApiOperation({
    summary: 'A talking head (script ≤ 2000): 1 credit per second of speech, estimated at 15 characters a second, at least 5, charged when accepted and '
      + 'refunded if it fails. The completed video becomes a `video` content item (ready), moderated, scheduled and published like any video.',
  })
  @ApiAcceptedResponse({ type: GenerationStartedDoc })
  @ApiErrors(...REFUSALS)
  async generate(@CurrentCaller() caller: Caller, @Param('id', CharacterId()) id: string, @Body() dto: TalkingHeadGenerateDto) {
    return this.started(await this.talkingHeads.start(caller.workspaceId, id, { kind: 'full', script: dto.script, aspectRatio: dto.aspect_ratio ?? '9:16' }));
  }

  @Get(['characters/:id/talking-head/generations', 'influencers/:id/talking-head/generations'])
  @Product()
  @MinRole('viewer')
  @ApiOperation({ operationId: 'listTalkingHeads', summary: 'The character’s talking heads, newest first.' })
  @ApiOkResponse({ type: GenerationListDoc })
  @ApiErrors('unauthorized', 'session_required', 'not_found')
  async list(@CurrentCaller() caller: Caller, @Param('id', CharacterId()) id: string, @Query() query: PageQueryDto) {
    const page = await this.talkingHeads.list(caller.workspaceId, id, pageRequest(query.page, query.page_size));
    return pageBody('generations', { ...page, items: page.items.map((g) => toGenerationBody(g, this.urls)) });
  }

  @Get('talking-head/:generationId')
  @Product()
  @MinRole('viewer')
  @ApiOperation({ summary: 'One talking head and its job.' })
  @ApiOkResponse({ type: GenerationEnvelope })
  @ApiErrors('unauthorized', 'session_required', 'not_found')
  async get(@CurrentCaller() caller: Caller, @Param('generationId', new IdParam('th', 'Talking head')) generationId: string) {
    const found = await this.talkingHeads.get(caller.workspaceId, generationId);
    return { generation: toGenerationBody(found.generation, this.urls), job: found.job ? toJobBody(found.job, this.urls) : null };
  }

  private started(s: StartedGeneration) {
    return {
      generation: toGenerationBody(s.generation, this.urls),
      job: toJobBody(s.job),
      pricing: { estimated_seconds: s.pricing.estimatedSeconds, credits: s.pricing.credits },
    };
  }
}
