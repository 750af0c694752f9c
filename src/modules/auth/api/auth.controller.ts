import { Body, Controller, Get, Header, HttpCode, Post, Req, Res } from '@nestjs/common';
import { ApiCreatedResponse, ApiExtraModels, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags, getSchemaPath } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import type { Caller } from '../../../core/index.js';
import { CurrentCaller, Open, Product, MinRole } from '../../../platform/auth/index.js';
import { ApiErrors } from '../../../platform/http/index.js';
import { RateLimiter } from '../../../platform/rate-limit/index.js';
import { AuthService } from '../application/auth.service.js';
import type { ClientInfo } from '../application/sessions.service.js';
import { MeView, membershipBody, SignedInView, signedInBody, SwitchedView, userBody, workspaceBody } from './dto/account.views.js';
import { MfaChallengeView, mfaChallengeBody } from './dto/two-factor.views.js';
import { LoginDto, LogoutDto, RefreshDto, RegisterDto, SwitchWorkspaceDto } from './dto/auth.dto.js';

function clientOf(req: Request): ClientInfo {
  return { ip: req.ip, userAgent: req.header('user-agent') };
}

@ApiTags('auth')
@Controller('auth')
export class AuthController {
  constructor(
    private readonly auth: AuthService,
    private readonly limiter: RateLimiter,
  ) {}

  @Post('register')
  @Open({ authLimit: true })
  @Header('Cache-Control', 'no-store')
  @ApiOperation({ operationId: 'register', summary: 'Create an account and its Starter workspace with the signup credits; signs in.' })
  @ApiCreatedResponse({ type: SignedInView })
  @ApiErrors('email_taken', 'rate_limited', 'not_found', 'invitation_expired', 'invitation_email_mismatch')
  async register(@Body() dto: RegisterDto, @Req() req: Request) {
    const signedIn = await this.auth.register(
      { email: dto.email, password: dto.password, displayName: dto.display_name, locale: dto.locale, invitationToken: dto.invitation_token },
      clientOf(req),
    );
    return signedInBody(signedIn);
  }

  @Post('login')
  @Open({ authLimit: true })
  @HttpCode(200)
  @Header('Cache-Control', 'no-store')
  @ApiOperation({ operationId: 'login', summary: 'Sign in with email and password. With two-factor on, no session yet: `{mfa_required: true, mfa_token}` for POST /auth/mfa/verify.' })
  @ApiExtraModels(SignedInView, MfaChallengeView)
  @ApiOkResponse({ schema: { oneOf: [{ $ref: getSchemaPath(SignedInView) }, { $ref: getSchemaPath(MfaChallengeView) }] } })
  @ApiErrors('invalid_credentials', 'forbidden', 'rate_limited')
  async login(@Body() dto: LoginDto, @Req() req: Request, @Res({ passthrough: true }) res: Response) {
    // Per-email failure limit; checked here because a refusal carries Retry-After.
    await this.limiter.assertSignInAllowed(dto.email, res);
    const outcome = await this.auth.login(dto.email, dto.password, clientOf(req));
    return 'mfaToken' in outcome ? mfaChallengeBody(outcome) : signedInBody(outcome);
  }

  @Post('refresh')
  @Open({ authLimit: true })
  @HttpCode(200)
  @Header('Cache-Control', 'no-store')
  @ApiOperation({ operationId: 'refreshSession', summary: 'Trade a refresh token for a new token pair; a reused token ends its session.' })
  @ApiOkResponse({ type: SignedInView })
  @ApiErrors('invalid_refresh_token', 'refresh_token_reused', 'rate_limited')
  async refresh(@Body() dto: RefreshDto, @Req() req: Request) {
    return signedInBody(await this.auth.refresh(dto.refresh_token, clientOf(req)));
  }

  @Get('me')
  @Product({ mfaExempt: true })
  @MinRole('viewer')
  @ApiOperation({ operationId: 'getMe', summary: 'The signed-in user and their workspace.' })
  @ApiOkResponse({ type: MeView })
  @ApiErrors('unauthorized', 'session_required', 'rate_limited')
  async me(@CurrentCaller() caller: Caller) {
    const { account, role, memberships } = await this.auth.me(caller);
    return { user: userBody(account.user), workspace: workspaceBody(account.workspace), workspace_role: role, workspaces: memberships.map(membershipBody) };
  }

  @Post('switch-workspace')
  @Product({ mfaExempt: true })
  @MinRole('viewer')
  @HttpCode(200)
  @Header('Cache-Control', 'no-store')
  @ApiOperation({ summary: 'A new token pair for another workspace you belong to (a session there; this one goes on).' })
  @ApiOkResponse({ type: SwitchedView })
  @ApiErrors('unauthorized', 'session_required', 'not_found', 'rate_limited')
  async switchWorkspace(@CurrentCaller() caller: Caller, @Body() dto: SwitchWorkspaceDto, @Req() req: Request) {
    const switched = await this.auth.switchWorkspace(caller, dto.workspace_id, clientOf(req));
    return { ...signedInBody(switched), workspace: membershipBody(switched.workspace) };
  }

  @Post('logout')
  @Product({ mfaExempt: true })
  @MinRole('viewer')
  @HttpCode(204)
  @ApiOperation({ operationId: 'logout', summary: 'End the session: its access and refresh tokens stop working at once.' })
  @ApiNoContentResponse({ description: 'Signed out.' })
  @ApiErrors('unauthorized', 'session_required')
  async logout(@CurrentCaller() caller: Caller, @Body() dto: LogoutDto): Promise<void> {
    await this.auth.logout(caller, dto.refresh_token);
  }
}
