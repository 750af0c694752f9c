import { Body, Controller, Get, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { pageBody, pageRequest, type Caller } from '../../../core/index.js';
import { CurrentCaller, PublicApi, MinRole } from '../../../platform/auth/index.js';
import { AppConfig } from '../../../config/index.js';
import { ApiErrors } from '../../../platform/http/index.js';
import { MediaUrls } from '../../../platform/storage/index.js';
import { CharactersService } from '../application/characters.service.js';
import { CharacterEnvelope, CharacterListBody, plainReferenceImages, listRowBody, toCharacterBody } from './dto/character.body.js';
import { CreateCharacterDto, toCharacterInput } from './dto/character.dto.js';
import { CharacterListQueryDto, toCharacterListFilter } from './dto/list-query.dto.js';

/** The agency public API: the same bodies as the product routes, reached with an API key. */
@ApiTags('public')
@Controller('public/characters')
export class PublicCharactersController {
  constructor(
    private readonly characters: CharactersService,
    private readonly urls: MediaUrls,
    private readonly config: AppConfig,
  ) {}

  @Post()
  @PublicApi('characters:write')
  @MinRole('editor')
  @ApiOperation({ summary: 'Create a character (as POST /characters).' })
  @ApiCreatedResponse({ type: CharacterEnvelope })
  @ApiErrors('unauthorized', 'api_key_required', 'plan_required', 'insufficient_scope', 'character_limit_reached')
  async create(@CurrentCaller() caller: Caller, @Body() dto: CreateCharacterDto) {
    const character = await this.characters.create(caller.workspaceId, { ...plainReferenceImages(toCharacterInput(dto), this.urls), name: dto.name, niche: dto.niche });
    return { character: toCharacterBody(character, this.urls, this.config.publishing.defaultTimezone) };
  }

  @Get()
  @PublicApi('characters:read')
  @MinRole('viewer')
  @ApiOperation({ summary: 'List characters (as GET /characters).' })
  @ApiOkResponse({ type: CharacterListBody })
  @ApiErrors('unauthorized', 'api_key_required', 'plan_required', 'insufficient_scope')
  async list(@CurrentCaller() caller: Caller, @Query() query: CharacterListQueryDto) {
    const page = await this.characters.list(caller.workspaceId, pageRequest(query.page, query.page_size), toCharacterListFilter(query));
    const zone = this.config.publishing.defaultTimezone;
    return pageBody('characters', { ...page, items: page.items.map((c) => listRowBody(c, this.urls, zone)) });
  }
}
