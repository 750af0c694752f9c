import { Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Caller } from '../../../core/index.js';
import { CurrentCaller, MinRole, Product } from '../../../platform/auth/index.js';
import { ApiErrors, IdParam } from '../../../platform/http/index.js';
import { toConversationBody, toMessageBody } from '../application/conversation-events.js';
import { ConversationsService } from '../application/conversations.service.js';
import { ConversationEnvelope, ConversationMessageEnvelope, ConversationWithMessagesBody } from './dto/engagement.body.js';
import { ApproveReplyDto, ManualReplyDto } from './dto/engagement.dto.js';

const ConversationId = () => new IdParam('cnv', 'Conversation');

/** One conversation: read it, answer by hand, approve a draft, pause and resume the responder for it. */
@ApiTags('engagement')
@Controller('conversations')
export class ConversationsController {
  constructor(private readonly conversations: ConversationsService) {}

  @Get(':id')
  @Product()
  @MinRole('viewer')
  @ApiOperation({ summary: 'A conversation with its latest 200 messages, oldest first.' })
  @ApiOkResponse({ type: ConversationWithMessagesBody })
  @ApiErrors('unauthorized', 'session_required', 'not_found')
  async get(@CurrentCaller() caller: Caller, @Param('id', ConversationId()) id: string) {
    const { conversation, messages } = await this.conversations.get(caller.workspaceId, id);
    return { conversation: toConversationBody(conversation), messages: messages.map(toMessageBody) };
  }

  @Post(':id/reply')
  @Product()
  @MinRole('editor')
  @ApiOperation({ summary: 'Reply by hand, as the character, to the latest message: sent at once (no delay, outside the hourly cap), exactly once. Audited.' })
  @ApiCreatedResponse({ type: ConversationMessageEnvelope })
  @ApiErrors('unauthorized', 'session_required', 'forbidden', 'not_found', 'validation_failed', 'invalid_state_transition')
  async reply(@CurrentCaller() caller: Caller, @Param('id', ConversationId()) id: string, @Body() dto: ManualReplyDto) {
    return { message: toMessageBody(await this.conversations.reply(caller, id, dto.text)) };
  }

  @Post(':id/pause')
  @HttpCode(200)
  @Product()
  @MinRole('editor')
  @ApiOperation({ summary: 'Stop auto replies in this conversation; replies queued and not yet sent wait for review instead. Audited.' })
  @ApiOkResponse({ type: ConversationEnvelope })
  @ApiErrors('unauthorized', 'session_required', 'forbidden', 'not_found')
  async pause(@CurrentCaller() caller: Caller, @Param('id', ConversationId()) id: string) {
    return { conversation: toConversationBody(await this.conversations.pause(caller, id)) };
  }

  @Post(':id/resume')
  @HttpCode(200)
  @Product()
  @MinRole('editor')
  @ApiOperation({ summary: 'Answer new messages of this conversation again (held drafts still wait for approval). Audited.' })
  @ApiOkResponse({ type: ConversationEnvelope })
  @ApiErrors('unauthorized', 'session_required', 'forbidden', 'not_found')
  async resume(@CurrentCaller() caller: Caller, @Param('id', ConversationId()) id: string) {
    return { conversation: toConversationBody(await this.conversations.resume(caller, id)) };
  }

  @Post(':id/messages/:mid/approve')
  @HttpCode(200)
  @Product()
  @MinRole('editor')
  @ApiOperation({ summary: 'Send a drafted reply that waits for review, as drafted or as edited (`text`): at once, exactly once. Audited.' })
  @ApiOkResponse({ type: ConversationMessageEnvelope })
  @ApiErrors('unauthorized', 'session_required', 'forbidden', 'not_found', 'validation_failed', 'invalid_state_transition')
  async approve(@CurrentCaller() caller: Caller, @Param('id', ConversationId()) id: string, @Param('mid', new IdParam('cmsg', 'Message')) mid: string, @Body() dto: ApproveReplyDto) {
    return { message: toMessageBody(await this.conversations.approve(caller, id, mid, dto.text)) };
  }
}
