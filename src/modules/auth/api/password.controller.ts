import { Body, Controller, Header, HttpCode, Post, Put, Req } from '@nestjs/common';
import { ApiAcceptedResponse, ApiNoContentResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import type { Caller } from '../../../core/index.js';
import { CurrentCaller, MinRole, Open, Product } from '../../../platform/auth/index.js';
import { ApiErrors, JsonOnly } from '../../../platform/http/index.js';
import { PasswordChangeService } from '../application/password-change.service.js';
import { PasswordResetService } from '../application/password-reset.service.js';
import { ChangePasswordDto, FORGOT_PASSWORD_ANSWER, ForgotPasswordDto, ForgotPasswordView, ResetPasswordDto } from './dto/password.dto.js';

/** Forgot, reset and change password (docs/accounts-passwords.md). JSON bodies only: no cross-site form can reach them. */
@ApiTags('auth')
@JsonOnly()
@Controller('auth/password')
export class PasswordController {
  constructor(
    private readonly resets: PasswordResetService,
    private readonly changes: PasswordChangeService,
  ) {}

  @Post('forgot')
  @Open({ authLimit: true })
  @HttpCode(202)
  @Header('Cache-Control', 'no-store')
  @ApiOperation({ summary: 'Mail a password reset link; the same answer, in the same time, whether or not the address has an account.' })
  @ApiAcceptedResponse({ type: ForgotPasswordView })
  @ApiErrors('rate_limited')
  async forgot(@Body() dto: ForgotPasswordDto, @Req() req: Request): Promise<ForgotPasswordView> {
    await this.resets.forgot(dto.email, { ip: req.ip, userAgent: req.header('user-agent') });
    return FORGOT_PASSWORD_ANSWER;
  }

  @Post('reset')
  @Open({ authLimit: true })
  @HttpCode(204)
  @Header('Cache-Control', 'no-store')
  @ApiOperation({ summary: 'Set a new password with the mailed token (once, within its life); ends every session of the account.' })
  @ApiNoContentResponse({ description: 'Password set; sign in with it.' })
  @ApiErrors('invalid_reset_token', 'rate_limited')
  async reset(@Body() dto: ResetPasswordDto, @Req() req: Request): Promise<void> {
    await this.resets.reset(dto.token, dto.password, { ip: req.ip, userAgent: req.header('user-agent') });
  }

  @Put()
  @Product()
  @MinRole('viewer')
  @HttpCode(204)
  @ApiOperation({ summary: 'Change the password with the current one; this session goes on, every other one ends.' })
  @ApiNoContentResponse({ description: 'Password changed.' })
  @ApiErrors('current_password_incorrect', 'unauthorized', 'session_required', 'rate_limited')
  async change(@CurrentCaller() caller: Caller, @Body() dto: ChangePasswordDto): Promise<void> {
    await this.changes.change(caller, dto.current_password, dto.password);
  }
}
