import { Body, Controller, Get, Param, Put, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { pageBody, pageRequest, type Caller } from '../../../core/index.js';
import { CurrentCaller, MinRole, Product } from '../../../platform/auth/index.js';
import { ApiErrors, IdParam } from '../../../platform/http/index.js';
import { toConversationBody } from '../application/conversation-events.js';
import { ConversationsService } from '../application/conversations.service.js';
import { ResponderService } from '../application/responder.service.js';
import type { ResponderPatch } from '../domain/responder.js';
import { ConversationListBody, ResponderSettingsEnvelope, toResponderBody } from './dto/engagement.body.js';
import { ConversationsQuery, ResponderSettingsDto } from './dto/engagement.dto.js';

const CharacterId = () => new IdParam('char', 'Character');

/** A character's responder settings and its conversations. `/influencers` answers alike. */
@ApiTags('engagement')
@Controller(['characters', 'influencers'])
export class ResponderController {
  constructor(
    private readonly responder: ResponderService,
    private readonly conversations: ConversationsService,
  ) {}

  @Get(':id/responder')
  @Product()
  @MinRole('viewer')
  @ApiOperation({ summary: 'The character’s comment and DM responder settings (the defaults, off, until first saved).' })
  @ApiOkResponse({ type: ResponderSettingsEnvelope })
  @ApiErrors('unauthorized', 'session_required', 'not_found')
  async get(@CurrentCaller() caller: Caller, @Param('id', CharacterId()) id: string) {
    return { responder: toResponderBody(id, await this.responder.get(caller.workspaceId, id)) };
  }

  @Put(':id/responder')
  @Product()
  @MinRole('editor')
  @ApiOperation({ summary: 'Set the character’s responder; fields left out keep their value. Audited (`responder.updated`).' })
  @ApiOkResponse({ type: ResponderSettingsEnvelope })
  @ApiErrors('unauthorized', 'session_required', 'forbidden', 'not_found', 'validation_failed')
  async put(@CurrentCaller() caller: Caller, @Param('id', CharacterId()) id: string, @Body() dto: ResponderSettingsDto) {
    const saved = await this.responder.update(caller, id, {
      enabled: dto.enabled,
      platformsEnabled: dto.platforms_enabled as ResponderPatch['platformsEnabled'],
      maxRepliesPerHour: dto.max_replies_per_hour,
      responseDelaySeconds: dto.response_delay_seconds,
      greetingMessage: dto.greeting_message,
      bannedTopics: dto.banned_topics,
      mode: dto.mode,
    });
    return { responder: toResponderBody(id, saved) };
  }

  @Get(':id/conversations')
  @Product()
  @MinRole('viewer')
  @ApiOperation({ operationId: 'listConversations', summary: 'The character’s conversations, latest message first; filter by platform and status.' })
  @ApiOkResponse({ type: ConversationListBody })
  @ApiErrors('unauthorized', 'session_required', 'not_found', 'validation_failed')
  async list(@CurrentCaller() caller: Caller, @Param('id', CharacterId()) id: string, @Query() query: ConversationsQuery) {
    const page = await this.conversations.list(caller.workspaceId, id, { platform: query.platform, status: query.status }, pageRequest(query.page, query.page_size));
    return pageBody('conversations', { ...page, items: page.items.map(toConversationBody) });
  }
}
