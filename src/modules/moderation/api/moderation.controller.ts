import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
import { ApiAcceptedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Caller } from '../../../core/index.js';
import { CurrentCaller, Product, MinRole } from '../../../platform/auth/index.js';
import { ApiErrors, IdParam, IndexParam } from '../../../platform/http/index.js';
import { MediaUrls } from '../../../platform/storage/index.js';
import { ItemAndJobEnvelope, ItemEnvelope, toItemBody, toOrderedBody } from '../../content/index.js';
import { ModerationService } from '../application/moderation.service.js';
import { RejectContentDto } from './dto/reject.dto.js';

const CharacterId = () => new IdParam('char', 'Character');
const ContentId = () => new IdParam('cnt', 'Content');
const MediaIndex = () => new IndexParam('Media');

/** Moderation of a character's content. A content id that is not the path character's is 404. */
@ApiTags('moderation')
@Controller(['characters/:id/content/:contentId', 'influencers/:id/content/:contentId'])
export class ModerationController {
  constructor(
    private readonly moderation: ModerationService,
    private readonly urls: MediaUrls,
  ) {}

  @Post('approve')
  @HttpCode(200)
  @Product()
  @MinRole('editor')
  @ApiOperation({ operationId: 'approveContent', summary: 'Approve (from ready or rejected).' })
  @ApiOkResponse({ type: ItemEnvelope })
  @ApiErrors('unauthorized', 'session_required', 'not_found', 'invalid_state_transition')
  async approve(@CurrentCaller() caller: Caller, @Param('id', CharacterId()) id: string, @Param('contentId', ContentId()) contentId: string) {
    return { item: toItemBody(await this.moderation.approve(caller, id, contentId), this.urls) };
  }

  @Post('reject')
  @HttpCode(200)
  @Product()
  @MinRole('editor')
  @ApiOperation({ operationId: 'rejectContent', summary: 'Reject (from ready or approved), with an optional reason.' })
  @ApiOkResponse({ type: ItemEnvelope })
  @ApiErrors('unauthorized', 'session_required', 'not_found', 'invalid_state_transition')
  async reject(
    @CurrentCaller() caller: Caller,
    @Param('id', CharacterId()) id: string,
    @Param('contentId', ContentId()) contentId: string,
    @Body() dto: RejectContentDto,
  ) {
    return { item: toItemBody(await this.moderation.reject(caller, id, contentId, dto.reason || undefined), this.urls) };
  }

  @Post('regenerate')
  @HttpCode(202)
  @Product()
  @MinRole('editor')
  @ApiOperation({ operationId: 'regenerateContent', summary: 'Generate again (from ready, rejected, failed or approved): a new job and a new charge.' })
  @ApiAcceptedResponse({ type: ItemAndJobEnvelope })
  @ApiErrors('unauthorized', 'session_required', 'not_found', 'invalid_state_transition', 'insufficient_credits')
  async regenerate(@CurrentCaller() caller: Caller, @Param('id', CharacterId()) id: string, @Param('contentId', ContentId()) contentId: string) {
    return toOrderedBody(await this.moderation.regenerate(caller.workspaceId, id, contentId), this.urls);
  }

  @Post('media/:mediaIndex/approve')
  @HttpCode(200)
  @Product()
  @MinRole('editor')
  @ApiOperation({ operationId: 'approveContentMedia', summary: 'Approve one medium; when all are approved the item is approved.' })
  @ApiOkResponse({ type: ItemEnvelope })
  @ApiErrors('unauthorized', 'session_required', 'not_found', 'invalid_state_transition')
  async approveMedia(
    @CurrentCaller() caller: Caller,
    @Param('id', CharacterId()) id: string,
    @Param('contentId', ContentId()) contentId: string,
    @Param('mediaIndex', MediaIndex()) index: number,
  ) {
    return { item: toItemBody(await this.moderation.reviewMedium(caller, id, contentId, index, 'approve'), this.urls) };
  }

  @Post('media/:mediaIndex/reject')
  @HttpCode(200)
  @Product()
  @MinRole('editor')
  @ApiOperation({ operationId: 'rejectContentMedia', summary: 'Reject one medium.' })
  @ApiOkResponse({ type: ItemEnvelope })
  @ApiErrors('unauthorized', 'session_required', 'not_found', 'invalid_state_transition')
  async rejectMedia(
    @CurrentCaller() caller: Caller,
    @Param('id', CharacterId()) id: string,
    @Param('contentId', ContentId()) contentId: string,
    @Param('mediaIndex', MediaIndex()) index: number,
  ) {
    return { item: toItemBody(await this.moderation.reviewMedium(caller, id, contentId, index, 'reject'), this.urls) };
  }
}
