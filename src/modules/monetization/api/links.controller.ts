import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AppError, pageBody, pageRequest, type Caller } from '../../../core/index.js';
import { CurrentCaller, MinRole, Product } from '../../../platform/auth/index.js';
import { ApiErrors, IdParam, PageQueryDto } from '../../../platform/http/index.js';
import { LinksService } from '../application/links.service.js';
import { ClickSeriesBody, LinkEnvelope, LinkListBody, toClicksBody, toLinkBody } from './dto/monetization.body.js';
import { ClicksQuery, CreateLinkDto, UpdateLinkDto } from './dto/links.dto.js';

const CharacterId = () => new IdParam('char', 'Character');
const LinkId = () => new IdParam('lnk', 'Link');

/** A character's affiliate links (docs/monetization.md): editors and above write, viewers read. */
@ApiTags('monetization')
@Controller()
@Product()
@ApiErrors('unauthorized', 'session_required', 'not_found')
export class LinksController {
  constructor(private readonly links: LinksService) {}

  @Get('characters/:id/links')
  @MinRole('viewer')
  @ApiOperation({ operationId: 'listCharacterLinks', summary: 'The character’s affiliate links, newest first, with their flushed click counts and revenue.' })
  @ApiOkResponse({ type: LinkListBody })
  @ApiErrors('validation_failed')
  async list(@CurrentCaller() caller: Caller, @Param('id', CharacterId()) id: string, @Query() q: PageQueryDto) {
    const page = await this.links.list(caller.workspaceId, id, pageRequest(q.page, q.page_size));
    return pageBody('links', { ...page, items: page.items.map((l) => toLinkBody(l, this.links.shortUrl(l.shortcode))) });
  }

  @Post('characters/:id/links')
  @MinRole('editor')
  @ApiOperation({ operationId: 'createCharacterLink', summary: 'Add an affiliate link; the shortcode is generated when not given.' })
  @ApiCreatedResponse({ type: LinkEnvelope })
  @ApiErrors('validation_failed', 'shortcode_taken')
  async create(@CurrentCaller() caller: Caller, @Param('id', CharacterId()) id: string, @Body() body: CreateLinkDto): Promise<LinkEnvelope> {
    const link = await this.links.create(caller, id, { platform: body.platform, destinationUrl: body.destination_url, shortcode: body.shortcode });
    return { link: toLinkBody(link, this.links.shortUrl(link.shortcode)) };
  }

  @Patch('links/:id')
  @MinRole('editor')
  @ApiOperation({ operationId: 'updateLink', summary: 'Change a link’s platform, destination or shortcode; counts and revenue stay.' })
  @ApiOkResponse({ type: LinkEnvelope })
  @ApiErrors('validation_failed', 'shortcode_taken')
  async update(@CurrentCaller() caller: Caller, @Param('id', LinkId()) id: string, @Body() body: UpdateLinkDto): Promise<LinkEnvelope> {
    if (body.platform === undefined && body.destination_url === undefined && body.shortcode === undefined) {
      throw new AppError('validation_failed', 'Send at least one of platform, destination_url, shortcode.', [{ field: 'body', message: 'nothing to change' }]);
    }
    const link = await this.links.update(caller, id, { platform: body.platform, destinationUrl: body.destination_url, shortcode: body.shortcode });
    return { link: toLinkBody(link, this.links.shortUrl(link.shortcode)) };
  }

  @Delete('links/:id')
  @HttpCode(204)
  @MinRole('editor')
  @ApiOperation({ operationId: 'deleteLink', summary: 'Delete a link: its shortcode stops redirecting, its daily clicks go, revenue entries keep their amounts (link_id null).' })
  @ApiNoContentResponse({ description: 'Deleted.' })
  async delete(@CurrentCaller() caller: Caller, @Param('id', LinkId()) id: string): Promise<void> {
    await this.links.delete(caller, id);
  }

  @Get('links/:id/clicks')
  @MinRole('viewer')
  @ApiOperation({ operationId: 'getLinkClicks', summary: 'The link’s counted clicks per UTC day (flushed ones), every day of the range listed.' })
  @ApiOkResponse({ type: ClickSeriesBody })
  @ApiErrors('validation_failed')
  async clicks(@CurrentCaller() caller: Caller, @Param('id', LinkId()) id: string, @Query() q: ClicksQuery): Promise<ClickSeriesBody> {
    return toClicksBody(await this.links.series(caller.workspaceId, id, { from: q.from, to: q.to }));
  }
}
