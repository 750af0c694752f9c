import { Body, Controller, Get, Param, Post, Put } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Caller } from '../../../core/index.js';
import { CurrentCaller, Product, MinRole } from '../../../platform/auth/index.js';
import { ApiErrors, IndexParam } from '../../../platform/http/index.js';
import { MediaUrls } from '../../../platform/storage/index.js';
import { ContentEditingService } from '../application/content-editing.service.js';
import { ContentId } from './content.controller.js';
import { ItemAndVariantsDoc, toItemBody, toVariantBody, VariantsDoc } from './dto/content-item.body.js';
import { CreateVariantsDto } from './dto/edit.dto.js';

/** Caption variants of an item: written on demand, one selected; locked once published. */
@ApiTags('content')
@Controller('content/:id/variants')
export class ContentVariantsController {
  constructor(
    private readonly editing: ContentEditingService,
    private readonly urls: MediaUrls,
  ) {}

  @Post()
  @Product()
  @MinRole('editor')
  @ApiOperation({ summary: 'Write 2 or 3 caption variants (replacing the previous set). Charged once per request.' })
  @ApiCreatedResponse({ type: VariantsDoc })
  @ApiErrors('unauthorized', 'session_required', 'not_found', 'variants_locked', 'insufficient_credits', 'upstream_failed')
  async create(@CurrentCaller() caller: Caller, @Param('id', ContentId()) id: string, @Body() dto: CreateVariantsDto) {
    return { variants: (await this.editing.createVariants(caller.workspaceId, id, dto.count)).map(toVariantBody) };
  }

  @Get()
  @Product()
  @MinRole('viewer')
  @ApiOperation({ summary: 'The item’s caption variants.' })
  @ApiOkResponse({ type: VariantsDoc })
  @ApiErrors('unauthorized', 'session_required', 'not_found')
  async list(@CurrentCaller() caller: Caller, @Param('id', ContentId()) id: string) {
    return { variants: (await this.editing.variants(caller.workspaceId, id)).map(toVariantBody) };
  }

  @Put(':idx/select')
  @Product()
  @MinRole('editor')
  @ApiOperation({ summary: 'Select a variant (zero-based): the item takes its caption, hashtags and call to action.' })
  @ApiOkResponse({ type: ItemAndVariantsDoc })
  @ApiErrors('unauthorized', 'session_required', 'not_found', 'variants_locked')
  async select(@CurrentCaller() caller: Caller, @Param('id', ContentId()) id: string, @Param('idx', new IndexParam('Variant')) idx: number) {
    const { view, variants } = await this.editing.selectVariant(caller.workspaceId, id, idx);
    return { item: toItemBody(view, this.urls), variants: variants.map(toVariantBody) };
  }
}
