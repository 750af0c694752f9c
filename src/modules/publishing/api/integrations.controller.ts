import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Query, Redirect, Res } from '@nestjs/common';
import { ApiFoundResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiParam, ApiProduces, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { PLATFORM_NAMES, type Caller, type Platform } from '../../../core/index.js';
import { CurrentCaller, Open, Product, MinRole } from '../../../platform/auth/index.js';
import { ApiErrors } from '../../../platform/http/index.js';
import { BRANDED_PAGE_CSP, BrandingService, renderBrandedPage } from '../../organisations/index.js';
import { ConnectionsService } from '../application/connections.service.js';
import { AuthUrlBody, BoardsBody, IntegrationEnvelope } from './dto/publishing.body.js';
import { AuthUrlQueryDto, DefaultBoardDto, SandboxConsentQueryDto, toCallbackParams } from './dto/publishing.dto.js';
import { PlatformParam } from './platform-param.js';

const PLATFORM = { name: 'platform', enum: PLATFORM_NAMES, description: 'A platform name or its neutral alias.' };

/** Connecting the workspace to social platforms (contract §8). */
@ApiTags('integrations')
@ApiParam(PLATFORM)
@Controller('integrations/:platform')
export class IntegrationsController {
  constructor(
    private readonly connections: ConnectionsService,
    private readonly branding: BrandingService,
  ) {}

  @Get()
  @Product()
  @MinRole('viewer')
  @ApiOperation({ summary: 'The connection state.' })
  @ApiOkResponse({ type: IntegrationEnvelope })
  @ApiErrors('unauthorized', 'session_required', 'not_found', 'rate_limited')
  async get(@CurrentCaller() caller: Caller, @Param('platform', PlatformParam) platform: Platform): Promise<IntegrationEnvelope> {
    return { integration: await this.connections.view(caller.workspaceId, platform) };
  }

  @Get('auth-url')
  @Product()
  @MinRole('admin')
  @ApiOperation({ operationId: 'getIntegrationAuthUrl', summary: 'The OAuth consent URL (signed single-use state, 10 minutes; PKCE where supported).' })
  @ApiOkResponse({ type: AuthUrlBody })
  @ApiErrors('unauthorized', 'session_required', 'not_found', 'validation_failed', 'rate_limited')
  async authUrl(@CurrentCaller() caller: Caller, @Param('platform', PlatformParam) platform: Platform, @Query() q: AuthUrlQueryDto): Promise<AuthUrlBody> {
    return { url: await this.connections.authUrl(caller.workspaceId, caller.userId, platform, q.redirect) };
  }

  @Get('callback')
  @Open({ authLimit: true })
  @ApiOperation({ operationId: 'completeIntegrationOAuth', summary: 'Where the platform returns the user: exchanges the code, then 302 to the app path with ?connected= or ?error=; the body is a page in the workspace\'s branding with the same link.' })
  @ApiQuery({ name: 'code', required: false })
  @ApiQuery({ name: 'state', required: false })
  @ApiQuery({ name: 'error', required: false, description: 'Set by the platform when the user declined. Other parameters platforms add are ignored.' })
  @ApiFoundResponse({ description: 'Back to the app.' })
  @ApiProduces('text/html')
  @ApiErrors('invalid_oauth_state', 'not_found', 'validation_failed', 'rate_limited')
  async callback(@Param('platform', PlatformParam) platform: Platform, @Query() query: Record<string, unknown>, @Res() res: Response): Promise<void> {
    const outcome = await this.connections.callback(platform, toCallbackParams(query));
    // Browsers follow the Location; the page is for those that stop on it. The connection is made:
    // branding that cannot be read leaves the page in the product's own look rather than failing it.
    const page = outcome.connected
      ? { title: 'Account connected', message: `Your ${platform} account is connected.`, link: { href: outcome.location, text: 'Back to the app' } }
      : { title: 'Connection not completed', message: `The ${platform} account was not connected.`, link: { href: outcome.location, text: 'Back to the app' } };
    const html = renderBrandedPage(page, await this.branding.forPage(outcome.workspaceId).catch(() => null));
    res.status(302).location(outcome.location).setHeader('Content-Security-Policy', BRANDED_PAGE_CSP);
    res.type('html').send(html);
  }

  @Get('sandbox-consent')
  @Open({ authLimit: true })
  @Redirect()
  @ApiOperation({ operationId: 'giveSandboxIntegrationConsent', summary: 'Sandbox mode only: the built-in consent screen, agreed at once; 302 to the callback.' })
  @ApiFoundResponse({ description: 'To the callback with a sandbox code.' })
  @ApiErrors('not_found', 'validation_failed', 'rate_limited')
  sandboxConsent(@Param('platform', PlatformParam) platform: Platform, @Query() q: SandboxConsentQueryDto): { url: string; statusCode: number } {
    return { url: this.connections.sandboxConsent(platform, q.state), statusCode: 302 };
  }

  @Delete()
  @Product()
  @MinRole('admin')
  @HttpCode(204)
  @ApiOperation({ summary: 'Disconnect: revokes at the platform where it allows, forgets the tokens.' })
  @ApiNoContentResponse({ description: 'Disconnected.' })
  @ApiErrors('unauthorized', 'session_required', 'not_found', 'rate_limited')
  async disconnect(@CurrentCaller() caller: Caller, @Param('platform', PlatformParam) platform: Platform): Promise<void> {
    await this.connections.disconnect(caller, platform);
  }

  @Get('boards')
  @Product()
  @MinRole('viewer')
  @ApiOperation({ operationId: 'listIntegrationBoards', summary: 'Pinterest: the boards of the connected account.' })
  @ApiOkResponse({ type: BoardsBody })
  @ApiErrors('unauthorized', 'session_required', 'not_found', 'integration_not_connected', 'upstream_failed', 'rate_limited')
  async boards(@CurrentCaller() caller: Caller, @Param('platform', PlatformParam) platform: Platform): Promise<BoardsBody> {
    return { boards: await this.connections.boards(caller.workspaceId, platform) };
  }

  @Patch('default-board')
  @Product()
  @MinRole('admin')
  @ApiOperation({ operationId: 'setIntegrationDefaultBoard', summary: 'Pinterest: the board pins go to.' })
  @ApiOkResponse({ type: IntegrationEnvelope })
  @ApiErrors('unauthorized', 'session_required', 'not_found', 'validation_failed', 'integration_not_connected', 'upstream_failed', 'rate_limited')
  async defaultBoard(@CurrentCaller() caller: Caller, @Param('platform', PlatformParam) platform: Platform, @Body() body: DefaultBoardDto): Promise<IntegrationEnvelope> {
    return { integration: await this.connections.setDefaultBoard(caller.workspaceId, platform, body.board_id) };
  }
}
