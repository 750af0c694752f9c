import { Body, Controller, Delete, Get, Header, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { pageRequest, type Caller } from '../../../core/index.js';
import { CurrentCaller, MinRole, Product } from '../../../platform/auth/index.js';
import { ApiErrors, IdParam } from '../../../platform/http/index.js';
import { UserSessionsService } from '../application/user-sessions.service.js';
import { userBody } from './dto/account.views.js';
import { PreferencesDto, PreferencesView, RevokedView, SessionListView, sessionListBody, SessionsQueryDto } from './dto/sessions.dto.js';

/** The signed-in user's own sessions (every workspace) and account preferences. Any role: it is about the user, not the workspace. */
@ApiTags('auth')
@Controller('auth')
export class SessionsController {
  constructor(private readonly sessions: UserSessionsService) {}

  @Get('sessions')
  @Product({ mfaExempt: true })
  @MinRole('viewer')
  @Header('Cache-Control', 'no-store')
  @ApiOperation({ summary: 'Your sessions that still work, in every workspace, most recently used first; `current` marks this one.' })
  @ApiOkResponse({ type: SessionListView })
  @ApiErrors('unauthorized', 'session_required', 'rate_limited')
  async list(@CurrentCaller() caller: Caller, @Query() q: SessionsQueryDto): Promise<SessionListView> {
    return sessionListBody(await this.sessions.list(caller, pageRequest(q.page, q.page_size)));
  }

  @Post('sessions/revoke-others')
  @Product({ mfaExempt: true })
  @MinRole('viewer')
  @HttpCode(200)
  @ApiOperation({ operationId: 'revokeOtherSessions', summary: 'End every session of yours but this one: their tokens stop working and their sockets close at once.' })
  @ApiOkResponse({ type: RevokedView })
  @ApiErrors('unauthorized', 'session_required', 'rate_limited')
  async revokeOthers(@CurrentCaller() caller: Caller): Promise<RevokedView> {
    return { revoked: await this.sessions.endOthers(caller) };
  }

  @Delete('sessions/:id')
  @Product({ mfaExempt: true })
  @MinRole('viewer')
  @HttpCode(204)
  @ApiOperation({ summary: 'End one of your sessions (this one too: that is a logout). Its tokens stop working and its sockets close at once.' })
  @ApiNoContentResponse({ description: 'Ended.' })
  @ApiErrors('unauthorized', 'session_required', 'not_found', 'rate_limited')
  async revoke(@CurrentCaller() caller: Caller, @Param('id', new IdParam('ses', 'Session')) id: string): Promise<void> {
    await this.sessions.end(caller, id);
  }

  @Put('preferences')
  @Product()
  @MinRole('viewer')
  @ApiOperation({ operationId: 'updatePreferences', summary: 'Your account preferences: `sign_in_alerts` emails you on a sign-in from a new device (off by default).' })
  @ApiOkResponse({ type: PreferencesView })
  @ApiErrors('unauthorized', 'session_required', 'rate_limited')
  async preferences(@CurrentCaller() caller: Caller, @Body() dto: PreferencesDto): Promise<PreferencesView> {
    return { user: userBody(await this.sessions.setSignInAlerts(caller, dto.sign_in_alerts)) };
  }
}
