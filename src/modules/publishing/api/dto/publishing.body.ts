import { ApiProperty } from '@nestjs/swagger';
import { PUBLISH_ERROR_CODES } from '../../application/ports/platform-client.js';
import { CONNECTION_STATUSES } from '../../domain/connection.js';
import { POST_STATUSES } from '../../domain/scheduled-post.js';

class PostErrorBody {
  @ApiProperty({ enum: [...PUBLISH_ERROR_CODES], description: 'not_connected: the connection was removed before the post was due.' }) code!: string;
  @ApiProperty() message!: string;
}

/** The wire shape of a scheduled post (contract §8). */
export class ScheduledPostBody {
  @ApiProperty({ example: 'sch_01HZX6FQJ5N6E7T2M3A4B5C6D7' }) id!: string;
  @ApiProperty({ example: 'cnt_01HZX6FQJ5N6E7T2M3A4B5C6D7' }) content_id!: string;
  @ApiProperty({ example: 'char_01HZX6FQJ5N6E7T2M3A4B5C6D7' }) character_id!: string;
  @ApiProperty({ example: 'instagram', description: 'As the client spelled it.' }) platform!: string;
  @ApiProperty({ enum: POST_STATUSES }) status!: string;
  @ApiProperty({ format: 'date-time' }) scheduled_at!: string;
  @ApiProperty({ format: 'date-time', nullable: true, type: String }) published_at!: string | null;
  @ApiProperty({ nullable: true, type: String }) remote_post_id!: string | null;
  @ApiProperty({ nullable: true, type: String }) remote_url!: string | null;
  @ApiProperty({ type: [String] }) media_urls!: string[];
  @ApiProperty({ description: 'Publish attempts so far (at most 3).' }) attempts!: number;
  @ApiProperty({ format: 'date-time', nullable: true, type: String, description: 'When a retry is due, while pending after a retryable failure.' }) next_attempt_at!: string | null;
  @ApiProperty({ type: PostErrorBody, nullable: true }) error!: PostErrorBody | null;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ format: 'date-time' }) updated_at!: string;
}

export class ScheduledPostEnvelope {
  @ApiProperty({ type: ScheduledPostBody }) scheduled_post!: ScheduledPostBody;
}

export class ScheduledPostsEnvelope {
  @ApiProperty({ type: [ScheduledPostBody] }) scheduled_posts!: ScheduledPostBody[];
}

export class ScheduledPostPageBody extends ScheduledPostsEnvelope {
  @ApiProperty({ type: 'integer' }) page!: number;
  @ApiProperty({ type: 'integer' }) page_size!: number;
  @ApiProperty({ type: 'integer' }) total!: number;
}

export class GeneratedScheduleBody {
  @ApiProperty({ example: 'America/New_York' }) timezone!: string;
  @ApiProperty({ enum: ['history', 'defaults'], description: "`history` when a platform's own engagement (10 or more measured posts there) chose its hours." }) slot_source!: string;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string', enum: ['history', 'defaults'] }, description: 'The source per platform of the plan.' }) slot_sources!: Record<string, string>;
  @ApiProperty({ type: [ScheduledPostBody] }) scheduledPosts!: ScheduledPostBody[];
}

class PublishResultBody {
  @ApiProperty() remote_post_id!: string;
  @ApiProperty({ type: [String] }) media_urls!: string[];
}

export class PublishOutcomeBody extends ScheduledPostEnvelope {
  @ApiProperty({ type: PublishResultBody }) publish_result!: PublishResultBody;
}

class AccountBody {
  @ApiProperty() id!: string;
  @ApiProperty() name!: string;
}

export class IntegrationBody {
  @ApiProperty({ example: 'instagram' }) platform!: string;
  @ApiProperty() connected!: boolean;
  @ApiProperty({ enum: CONNECTION_STATUSES }) status!: string;
  @ApiProperty({ enum: ['live', 'sandbox'] }) mode!: string;
  @ApiProperty({ type: AccountBody, nullable: true }) account!: AccountBody | null;
  @ApiProperty({ type: [String] }) scopes!: string[];
  @ApiProperty({ format: 'date-time', nullable: true, type: String }) connected_at!: string | null;
  @ApiProperty({ format: 'date-time', nullable: true, type: String }) expires_at!: string | null;
  @ApiProperty({ nullable: true, type: String, description: 'Pinterest: the board pins go to.' }) default_board_id!: string | null;
}

export class IntegrationEnvelope {
  @ApiProperty({ type: IntegrationBody }) integration!: IntegrationBody;
}

export class AuthUrlBody {
  @ApiProperty({ example: 'https://www.facebook.com/v21.0/dialog/oauth?client_id=...&state=...' }) url!: string;
}

class BoardBody {
  @ApiProperty({ example: '1001' }) id!: string;
  @ApiProperty({ example: 'Outfits' }) name!: string;
  @ApiProperty({ example: 'PUBLIC' }) privacy!: string;
}

export class BoardsBody {
  @ApiProperty({ type: [BoardBody] }) boards!: BoardBody[];
}
