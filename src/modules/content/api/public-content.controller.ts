import { Body, Controller, Get, Param, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Caller } from '../../../core/index.js';
import { CurrentCaller, PublicApi, MinRole } from '../../../platform/auth/index.js';
import { ApiErrors } from '../../../platform/http/index.js';
import { MediaUrls } from '../../../platform/storage/index.js';
import { ContentGenerationService } from '../application/content-generation.service.js';
import { ContentQueryService } from '../application/content-query.service.js';
import { ContentId } from './content.controller.js';
import { ItemAndJobEnvelope, ItemEnvelope, toItemBody, toOrderedBody } from './dto/content-item.body.js';
import { GenerateContentDto, toGenerateImageRequest } from './dto/generate.dto.js';

/** The agency public API: the same bodies as the product routes, reached with an API key. */
@ApiTags('public')
@Controller('public')
export class PublicContentController {
  constructor(
    private readonly generation: ContentGenerationService,
    private readonly query: ContentQueryService,
    private readonly urls: MediaUrls,
  ) {}

  @Post('generate')
  @PublicApi('content:generate')
  @MinRole('editor')
  @ApiOperation({ summary: 'Generate content (as POST /content/generate).' })
  @ApiCreatedResponse({ type: ItemAndJobEnvelope })
  @ApiErrors('unauthorized', 'api_key_required', 'plan_required', 'insufficient_scope', 'not_found', 'insufficient_credits')
  async generate(@CurrentCaller() caller: Caller, @Body() dto: GenerateContentDto) {
    return toOrderedBody(await this.generation.generateImage(caller.workspaceId, toGenerateImageRequest(dto)), this.urls);
  }

  @Get('content/:id')
  @PublicApi('content:read')
  @MinRole('viewer')
  @ApiOperation({ summary: 'Read a content item (as GET /content/{id}).' })
  @ApiOkResponse({ type: ItemEnvelope })
  @ApiErrors('unauthorized', 'api_key_required', 'plan_required', 'insufficient_scope', 'not_found')
  async get(@CurrentCaller() caller: Caller, @Param('id', ContentId()) id: string) {
    return { item: toItemBody(await this.query.get(caller.workspaceId, id), this.urls) };
  }
}
