import { ApiProperty } from '@nestjs/swagger';
import { CONVERSATION_STATUSES, MESSAGE_ORIGINS, MESSAGE_STATUSES } from '../../domain/conversation.js';
import { RESPONDER_MODES, RESPONDER_PLATFORMS, REVIEW_REASONS, type ResponderSettings } from '../../domain/responder.js';

/** The wire body of a character's responder settings. */
export function toResponderBody(characterId: string, s: ResponderSettings): Record<string, unknown> {
  return {
    character_id: characterId,
    enabled: s.enabled,
    platforms_enabled: s.platformsEnabled,
    max_replies_per_hour: s.maxRepliesPerHour,
    response_delay_seconds: s.responseDelaySeconds,
    greeting_message: s.greetingMessage,
    banned_topics: s.bannedTopics,
    mode: s.mode,
    updated_at: s.updatedAt?.toISOString() ?? null,
  };
}

// Documentation shapes for the OpenAPI document.

export class ResponderSettingsBody {
  @ApiProperty({ example: 'char_01HZX6FQJ5N6E7T2M3A4B5C6D7' }) character_id!: string;
  @ApiProperty() enabled!: boolean;
  @ApiProperty({ type: [String], enum: RESPONDER_PLATFORMS }) platforms_enabled!: string[];
  @ApiProperty({ type: 'integer', minimum: 1, maximum: 200 }) max_replies_per_hour!: number;
  @ApiProperty({ type: 'integer', minimum: 0, maximum: 3600 }) response_delay_seconds!: number;
  @ApiProperty({ type: String, nullable: true }) greeting_message!: string | null;
  @ApiProperty({ type: [String] }) banned_topics!: string[];
  @ApiProperty({ enum: RESPONDER_MODES }) mode!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'null until the settings are first saved (the defaults apply).' }) updated_at!: string | null;
}

export class ResponderSettingsEnvelope {
  @ApiProperty({ type: ResponderSettingsBody }) responder!: ResponderSettingsBody;
}

class MessageErrorBody {
  @ApiProperty({ example: 'unconfirmed' }) code!: string;
  @ApiProperty() message!: string;
}

export class ConversationMessageBody {
  @ApiProperty({ example: 'cmsg_01HZX6FQJ5N6E7T2M3A4B5C6D7' }) id!: string;
  @ApiProperty({ example: 'cnv_01HZX6FQJ5N6E7T2M3A4B5C6D7' }) conversation_id!: string;
  @ApiProperty({ enum: ['inbound', 'outbound'] }) direction!: string;
  @ApiProperty({ enum: ['comment', 'dm'] }) channel!: string;
  @ApiProperty({ enum: MESSAGE_ORIGINS, description: 'audience; auto (drafted by the responder); manual (written by a person); platform (written by the account in the platform’s app).' }) origin!: string;
  @ApiProperty() text!: string;
  @ApiProperty({ enum: MESSAGE_STATUSES }) status!: string;
  @ApiProperty({ type: String, nullable: true, description: 'The platform’s id: of the message received, or of the reply once sent.' }) platform_message_id!: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'The post, tweet or video a comment was made on.' }) remote_post_id!: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'The message a reply answers.' }) reply_to_id!: string | null;
  @ApiProperty({ type: String, nullable: true, enum: REVIEW_REASONS, description: 'Why a draft waits for a person. draft_failed: the text generator could not write it (text is empty, error says why); approve it with text.' }) review_reason!: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'When a queued reply goes out (the delay, then the hourly cap).' }) send_at!: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) sent_at!: string | null;
  @ApiProperty({ type: MessageErrorBody, nullable: true }) error!: MessageErrorBody | null;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
}

export class ConversationBody {
  @ApiProperty({ example: 'cnv_01HZX6FQJ5N6E7T2M3A4B5C6D7' }) id!: string;
  @ApiProperty({ example: 'char_01HZX6FQJ5N6E7T2M3A4B5C6D7' }) character_id!: string;
  @ApiProperty({ enum: RESPONDER_PLATFORMS }) platform!: string;
  @ApiProperty({ description: 'The platform’s id of the person.' }) platform_user_id!: string;
  @ApiProperty({ description: 'Their handle where the platform gives one; may be empty.' }) platform_user_name!: string;
  @ApiProperty({ enum: CONVERSATION_STATUSES }) status!: string;
  @ApiProperty({ format: 'date-time' }) last_message_at!: string;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ format: 'date-time' }) updated_at!: string;
}

export class ConversationEnvelope {
  @ApiProperty({ type: ConversationBody }) conversation!: ConversationBody;
}

export class ConversationWithMessagesBody {
  @ApiProperty({ type: ConversationBody }) conversation!: ConversationBody;
  @ApiProperty({ type: [ConversationMessageBody], description: 'The latest 200 messages, oldest first.' }) messages!: ConversationMessageBody[];
}

export class ConversationMessageEnvelope {
  @ApiProperty({ type: ConversationMessageBody }) message!: ConversationMessageBody;
}

export class ConversationListBody {
  @ApiProperty({ type: [ConversationBody] }) conversations!: ConversationBody[];
  @ApiProperty({ type: 'integer' }) page!: number;
  @ApiProperty({ type: 'integer' }) page_size!: number;
  @ApiProperty({ type: 'integer' }) total!: number;
}
