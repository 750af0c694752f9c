import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { pageBody, pageRequest, type Caller } from '../../../core/index.js';
import { CurrentCaller, Product, MinRole } from '../../../platform/auth/index.js';
import { ApiErrors, IdParam } from '../../../platform/http/index.js';
import { AppConfig } from '../../../config/index.js';
import { MediaUrls } from '../../../platform/storage/index.js';
import { CharactersService } from '../application/characters.service.js';
import { CharacterEnvelope, CharacterListBody, plainReferenceImages, listRowBody, toCharacterBody } from './dto/character.body.js';
import { CharacterListQueryDto, toCharacterListFilter } from './dto/list-query.dto.js';
import { CreateCharacterDto, toCharacterInput, UpdateCharacterDto } from './dto/character.dto.js';

const CharacterId = () => new IdParam('char', 'Character');

/** Characters of the caller's workspace. `/influencers` is the older alias and answers alike. */
@ApiTags('characters')
@Controller(['characters', 'influencers'])
export class CharactersController {
  constructor(
    private readonly characters: CharactersService,
    private readonly urls: MediaUrls,
    private readonly config: AppConfig,
  ) {}

  /** The zone a character without one of its own (or a location naming one) posts in. */
  private get appZone(): string {
    return this.config.publishing.defaultTimezone;
  }

  @Post()
  @Product()
  @MinRole('editor')
  @ApiOperation({ summary: 'Create a character.' })
  @ApiCreatedResponse({ type: CharacterEnvelope })
  @ApiErrors('unauthorized', 'character_limit_reached')
  async create(@CurrentCaller() caller: Caller, @Body() dto: CreateCharacterDto) {
    const character = await this.characters.create(caller.workspaceId, { ...plainReferenceImages(toCharacterInput(dto), this.urls), name: dto.name, niche: dto.niche });
    return { character: toCharacterBody(character, this.urls, this.appZone) };
  }

  @Get()
  @Product()
  @MinRole('viewer')
  @ApiOperation({ summary: 'List characters, newest first; narrow by niche (whole, any case) and q (a piece of the name, any case).' })
  @ApiOkResponse({ type: CharacterListBody })
  @ApiErrors('unauthorized', 'validation_failed')
  async list(@CurrentCaller() caller: Caller, @Query() query: CharacterListQueryDto) {
    const page = await this.characters.list(caller.workspaceId, pageRequest(query.page, query.page_size), toCharacterListFilter(query));
    return pageBody('characters', { ...page, items: page.items.map((c) => listRowBody(c, this.urls, this.appZone)) });
  }

  @Get(':id')
  @Product()
  @MinRole('viewer')
  @ApiOperation({ summary: 'One character.' })
  @ApiOkResponse({ type: CharacterEnvelope })
  @ApiErrors('unauthorized', 'not_found')
  async get(@CurrentCaller() caller: Caller, @Param('id', CharacterId()) id: string) {
    return { character: toCharacterBody(await this.characters.get(caller.workspaceId, id), this.urls, this.appZone) };
  }

  @Patch(':id')
  @Product()
  @MinRole('editor')
  @ApiOperation({ summary: 'Update a character: any create field, plus timezone. Sections merge key by key.' })
  @ApiOkResponse({ type: CharacterEnvelope })
  @ApiErrors('unauthorized', 'not_found')
  async update(@CurrentCaller() caller: Caller, @Param('id', CharacterId()) id: string, @Body() dto: UpdateCharacterDto) {
    return { character: toCharacterBody(await this.characters.update(caller.workspaceId, id, plainReferenceImages(toCharacterInput(dto), this.urls)), this.urls, this.appZone) };
  }

  @Post(':id/default')
  @HttpCode(200)
  @Product()
  @MinRole('editor')
  @ApiOperation({ operationId: 'makeDefaultCharacter', summary: 'Make this the default character; the previous default is unset.' })
  @ApiOkResponse({ type: CharacterEnvelope })
  @ApiErrors('unauthorized', 'not_found')
  async makeDefault(@CurrentCaller() caller: Caller, @Param('id', CharacterId()) id: string) {
    return { character: toCharacterBody(await this.characters.setDefault(caller.workspaceId, id), this.urls, this.appZone) };
  }

  @Post(':id/duplicate')
  @Product()
  @MinRole('editor')
  @ApiOperation({ summary: 'Duplicate as "<name> (copy)": counters reset, no LoRA, reference images copied.' })
  @ApiCreatedResponse({ type: CharacterEnvelope })
  @ApiErrors('unauthorized', 'not_found', 'character_limit_reached')
  async duplicate(@CurrentCaller() caller: Caller, @Param('id', CharacterId()) id: string) {
    return { character: toCharacterBody(await this.characters.duplicate(caller.workspaceId, id), this.urls, this.appZone) };
  }

  @Delete(':id')
  @HttpCode(204)
  @Product()
  @MinRole('editor')
  @ApiOperation({ summary: 'Delete a character and its reference images.' })
  @ApiNoContentResponse()
  @ApiErrors('unauthorized', 'not_found')
  async remove(@CurrentCaller() caller: Caller, @Param('id', CharacterId()) id: string): Promise<void> {
    await this.characters.delete(caller, id);
  }
}
