import { Body, Controller, Header, HttpCode, Post, Put, Req, Res } from '@nestjs/common';
import { ApiAcceptedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { AppError, type Caller } from '../../../core/index.js';
import { CurrentCaller, MinRole, Open, Product } from '../../../platform/auth/index.js';
import { ApiErrors } from '../../../platform/http/index.js';
import { EmailChangeService } from '../application/email-change.service.js';
import { EmailVerificationService } from '../application/email-verification.service.js';
import { ChangeEmailDto, EmailChangeRequestedView, EmailConfirmedView, VerificationSentView, VerifyEmailDto } from './dto/email.dto.js';

/** A per-user or per-address limit's refusal carries Retry-After, as the request limits' do. */
async function withRetryAfter<T>(res: Response, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    const details = err instanceof AppError && err.code === 'rate_limited' && !Array.isArray(err.details) ? err.details : undefined;
    if (typeof details?.retry_after === 'number') res.setHeader('Retry-After', String(details.retry_after));
    throw err;
  }
}

/**
 * An open route that spends a one-time token takes JSON only: the server also parses form bodies,
 * which any page can post cross-site without CORS asking first.
 */
function assertJson(req: Request): void {
  if (!req.is('application/json')) throw new AppError('unsupported_media_type', 'Send a JSON body (Content-Type: application/json).');
}

/** Proving the account's email address, and moving the account to another one. */
@ApiTags('auth')
@Controller('auth')
export class EmailController {
  constructor(
    private readonly verification: EmailVerificationService,
    private readonly change: EmailChangeService,
  ) {}

  @Post('verify-email/request')
  @Product()
  @MinRole('viewer')
  @HttpCode(202)
  @ApiOperation({ operationId: 'requestEmailVerification', summary: 'Mail a new verification link to your address (24 h). At most 5 such mails an hour, the one sent at sign-up included.' })
  @ApiAcceptedResponse({ type: VerificationSentView })
  @ApiErrors('unauthorized', 'session_required', 'email_already_verified', 'rate_limited')
  async requestVerification(@CurrentCaller() caller: Caller, @Res({ passthrough: true }) res: Response): Promise<VerificationSentView> {
    const { expiresAt } = await withRetryAfter(res, () => this.verification.requestVerification(caller));
    return { expires_at: expiresAt.toISOString() };
  }

  @Post('verify-email')
  @Open({ authLimit: true })
  @HttpCode(200)
  @Header('Cache-Control', 'no-store')
  @ApiOperation({
    summary: 'Present a mailed token: verifies your address, or completes an email change (the token says which). Each token works once.',
    description: 'An unknown, expired, used or replaced token all answer the same 400 invalid_verification_token.',
  })
  @ApiOkResponse({ type: EmailConfirmedView })
  @ApiErrors('validation_failed', 'unsupported_media_type', 'invalid_verification_token', 'email_taken', 'rate_limited')
  async verify(@Body() dto: VerifyEmailDto, @Req() req: Request): Promise<EmailConfirmedView> {
    assertJson(req);
    const confirmed = await this.verification.confirm(dto.token);
    return { purpose: confirmed.purpose, email: confirmed.email, email_verified: true };
  }

  @Put('email')
  @Product()
  @MinRole('viewer')
  @HttpCode(202)
  @Header('Cache-Control', 'no-store')
  @ApiOperation({
    summary: 'Change your email address: a confirmation link goes to the new address; the change takes effect when it is opened, and the old address is told.',
  })
  @ApiAcceptedResponse({ type: EmailChangeRequestedView })
  @ApiErrors('unauthorized', 'session_required', 'validation_failed', 'current_password_incorrect', 'email_taken', 'rate_limited')
  async changeEmail(@CurrentCaller() caller: Caller, @Body() dto: ChangeEmailDto, @Res({ passthrough: true }) res: Response): Promise<EmailChangeRequestedView> {
    const requested = await withRetryAfter(res, () => this.change.request(caller, dto.password, dto.email));
    return { pending_email: requested.newEmail, expires_at: requested.expiresAt.toISOString() };
  }
}
