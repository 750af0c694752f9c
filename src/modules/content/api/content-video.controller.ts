import { Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiAcceptedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Caller } from '../../../core/index.js';
import { CurrentCaller, Product, MinRole } from '../../../platform/auth/index.js';
import { ApiErrors, IdParam } from '../../../platform/http/index.js';
import { MediaUrls } from '../../../platform/storage/index.js';
import { ContentGenerationService } from '../application/content-generation.service.js';
import { ContentQueryService } from '../application/content-query.service.js';
import { ItemAndJobEnvelope, toOrderedBody, toVideoStatusBody, VideoStatusDoc } from './dto/content-item.body.js';
import { GenerateVideoDto, toGenerateVideoRequest } from './dto/generate.dto.js';

/** Video posts: generated in the background, polled by the item id. */
@ApiTags('content')
@Controller('content/video')
export class ContentVideoController {
  constructor(
    private readonly generation: ContentGenerationService,
    private readonly query: ContentQueryService,
    private readonly urls: MediaUrls,
  ) {}

  @Post('generate')
  @HttpCode(202)
  @Product()
  @MinRole('editor')
  @ApiOperation({ operationId: 'generateVideo', summary: 'Generate a video post (5-60 s, default 8; 9:16, 1:1 or 16:9). Charged per second.' })
  @ApiAcceptedResponse({ type: ItemAndJobEnvelope })
  @ApiErrors('unauthorized', 'session_required', 'not_found', 'insufficient_credits')
  async generate(@CurrentCaller() caller: Caller, @Body() dto: GenerateVideoDto) {
    return toOrderedBody(await this.generation.generateVideo(caller.workspaceId, toGenerateVideoRequest(dto)), this.urls);
  }

  @Get(':id/status')
  @Product()
  @MinRole('viewer')
  @ApiOperation({ operationId: 'getVideoStatus', summary: 'Status of a video item: its job and, once made, the video.' })
  @ApiOkResponse({ type: VideoStatusDoc })
  @ApiErrors('unauthorized', 'session_required', 'not_found')
  async status(@CurrentCaller() caller: Caller, @Param('id', new IdParam('cnt', 'Video')) id: string) {
    const { item, job } = await this.query.videoStatus(caller.workspaceId, id);
    return toVideoStatusBody(item, job, this.urls);
  }
}
