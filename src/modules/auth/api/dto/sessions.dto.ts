import { ApiProperty } from '@nestjs/swagger';
import { IsBoolean } from 'class-validator';
import { PageQueryDto } from '../../../../platform/http/index.js';
import type { Page } from '../../../../core/index.js';
import type { SessionSummary } from '../../application/user-sessions.service.js';
import { UserView } from './account.views.js';

/** `GET /auth/sessions` takes only the paging parameters. */
export class SessionsQueryDto extends PageQueryDto {}

export class PreferencesDto {
  @ApiProperty({ description: 'Email me when my account signs in from a device not used in the last 90 days.' })
  @IsBoolean()
  sign_in_alerts!: boolean;
}

export function sessionBody(s: SessionSummary) {
  return {
    id: s.id,
    device: s.device,
    ip_prefix: s.ipPrefix,
    workspace_id: s.workspaceId,
    created_at: s.createdAt.toISOString(),
    last_used_at: s.lastUsedAt.toISOString(),
    current: s.current,
  };
}

export function sessionListBody(page: Page<SessionSummary>): SessionListView {
  return { sessions: page.items.map(sessionBody), page: page.page, page_size: page.pageSize, total: page.total };
}

export class SessionView {
  @ApiProperty({ example: 'ses_01J0000000000000000000000' }) id!: string;
  @ApiProperty({ example: 'Firefox on macOS', description: 'Browser and OS read from the User-Agent header at sign-in.' }) device!: string;
  @ApiProperty({ type: String, nullable: true, example: '203.0.113.0/24', description: 'The sign-in address’s network: an IPv4 /24 or an IPv6 /48.' }) ip_prefix!: string | null;
  @ApiProperty({ example: 'ws_01J0000000000000000000000' }) workspace_id!: string;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ format: 'date-time', description: 'The sign-in, or the last token refresh since.' }) last_used_at!: string;
  @ApiProperty({ description: 'The session of the token making this request.' }) current!: boolean;
}

export class SessionListView {
  @ApiProperty({ type: [SessionView] }) sessions!: SessionView[];
  @ApiProperty({ type: 'integer' }) page!: number;
  @ApiProperty({ type: 'integer' }) page_size!: number;
  @ApiProperty({ type: 'integer' }) total!: number;
}

export class RevokedView {
  @ApiProperty({ type: 'integer', example: 2, description: 'How many sessions were ended.' }) revoked!: number;
}

export class PreferencesView {
  @ApiProperty({ type: UserView }) user!: UserView;
}
