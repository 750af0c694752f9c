import { Body, Controller, Get, Header, HttpCode, Post, Req, Res } from '@nestjs/common';
import { ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { AppError, type Caller } from '../../../core/index.js';
import { CurrentCaller, MinRole, Open, Product } from '../../../platform/auth/index.js';
import { ApiErrors } from '../../../platform/http/index.js';
import { MfaSignIn } from '../application/mfa-sign-in.js';
import { TwoFactorService } from '../application/two-factor.service.js';
import { SignedInView, signedInBody } from './dto/account.views.js';
import { DisableMfaDto, EnableTotpDto, VerifyMfaDto } from './dto/two-factor.dto.js';
import { MfaStatusView, mfaStatusBody, proofOf, RecoveryCodesView, TotpSetupView, totpSetupBody } from './dto/two-factor.views.js';

/** A refusal for too many wrong codes carries Retry-After, like every 429. */
async function withRetryAfter<T>(res: Response, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    const details = err instanceof AppError && err.code === 'rate_limited' && !Array.isArray(err.details) ? err.details : undefined;
    if (typeof details?.retry_after === 'number') res.setHeader('Retry-After', String(details.retry_after));
    throw err;
  }
}

/**
 * Two-factor sign-in (TOTP). Every signed-in route here stays open to a member of a workspace that
 * requires two-factor before they have it (`mfaExempt`): they are how that member complies.
 */
@ApiTags('auth')
@Controller('auth/mfa')
export class TwoFactorController {
  constructor(
    private readonly twoFactor: TwoFactorService,
    private readonly signIn: MfaSignIn,
  ) {}

  @Get()
  @Product({ mfaExempt: true })
  @MinRole('viewer')
  @ApiOperation({ operationId: 'getTwoFactorStatus', summary: 'Whether two-factor sign-in is on (or set up and pending) and how many recovery codes are left.' })
  @ApiOkResponse({ type: MfaStatusView })
  @ApiErrors('unauthorized', 'session_required', 'rate_limited')
  async status(@CurrentCaller() caller: Caller) {
    return mfaStatusBody(await this.twoFactor.status(caller));
  }

  @Post('totp/setup')
  @Product({ mfaExempt: true })
  @MinRole('viewer')
  @HttpCode(200)
  @Header('Cache-Control', 'no-store')
  @ApiOperation({ operationId: 'setupTotp', summary: 'A new TOTP secret and its otpauth URI (issuer Persona Studio); pending until enabled with a code. Again replaces a pending one.' })
  @ApiOkResponse({ type: TotpSetupView })
  @ApiErrors('unauthorized', 'session_required', 'mfa_already_enabled', 'rate_limited')
  async setup(@CurrentCaller() caller: Caller) {
    return totpSetupBody(await this.twoFactor.setup(caller));
  }

  @Post('totp/enable')
  @Product({ mfaExempt: true })
  @MinRole('viewer')
  @HttpCode(200)
  @Header('Cache-Control', 'no-store')
  @ApiOperation({ operationId: 'enableTotp', summary: 'Confirm the pending secret with a current code: two-factor goes on; answers 10 one-time recovery codes, shown this once.' })
  @ApiOkResponse({ type: RecoveryCodesView })
  @ApiErrors('unauthorized', 'session_required', 'invalid_mfa_code', 'mfa_setup_required', 'mfa_already_enabled', 'rate_limited')
  async enable(@CurrentCaller() caller: Caller, @Body() dto: EnableTotpDto, @Res({ passthrough: true }) res: Response) {
    return { recovery_codes: await withRetryAfter(res, () => this.twoFactor.enable(caller, dto.code)) };
  }

  @Post('disable')
  @Product({ mfaExempt: true })
  @MinRole('viewer')
  @HttpCode(204)
  @ApiOperation({ summary: 'Turn two-factor off, with your password and a current code or a recovery code.' })
  @ApiNoContentResponse({ description: 'Two-factor is off; the secret and recovery codes are deleted.' })
  @ApiErrors('unauthorized', 'session_required', 'current_password_incorrect', 'invalid_mfa_code', 'mfa_not_enabled', 'rate_limited')
  async disable(@CurrentCaller() caller: Caller, @Body() dto: DisableMfaDto, @Res({ passthrough: true }) res: Response): Promise<void> {
    const proof = proofOf(dto);
    await withRetryAfter(res, () => this.twoFactor.disable(caller, dto.password, proof));
  }

  @Post('verify')
  @Open({ authLimit: true })
  @HttpCode(200)
  @Header('Cache-Control', 'no-store')
  @ApiOperation({ summary: 'Second step of a sign-in with two-factor on: the mfa_token from POST /auth/login and a code (or recovery code) start the session.' })
  @ApiOkResponse({ type: SignedInView })
  @ApiErrors('invalid_mfa_token', 'invalid_mfa_code', 'forbidden', 'rate_limited')
  async verify(@Body() dto: VerifyMfaDto, @Req() req: Request, @Res({ passthrough: true }) res: Response) {
    const proof = proofOf(dto);
    const signedIn = await withRetryAfter(res, () => this.signIn.verify(dto.mfa_token, proof, { ip: req.ip, userAgent: req.header('user-agent') }));
    return signedInBody(signedIn);
  }
}
