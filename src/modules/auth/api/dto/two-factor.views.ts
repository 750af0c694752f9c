import { ApiProperty } from '@nestjs/swagger';
import { AppError } from '../../../../core/index.js';
import type { MfaChallenge } from '../../application/mfa-challenges.js';
import type { SecondFactorProof } from '../../application/second-factor.js';
import type { TotpSetup, TwoFactorStatus } from '../../application/two-factor.service.js';
import type { SecondFactorDto } from './two-factor.dto.js';

/** Wire shapes of two-factor sign-in. */
export function mfaChallengeBody(c: MfaChallenge) {
  return { mfa_required: true as const, mfa_token: c.mfaToken, expires_in: c.expiresIn };
}

export function totpSetupBody(s: TotpSetup) {
  return { secret: s.secret, otpauth_uri: s.otpauthUri };
}

export function mfaStatusBody(s: TwoFactorStatus) {
  return { mfa: { enabled: s.enabled, pending: s.pending, recovery_codes_remaining: s.recoveryCodesRemaining } };
}

/**
 * The proof a body carries: exactly one of `code` and `recovery_code`; a `code` that is not six
 * digits is taken as a recovery code (the disable route's `{password, code}` accepts either).
 */
export function proofOf(dto: SecondFactorDto): SecondFactorProof {
  if ((dto.code === undefined) === (dto.recovery_code === undefined)) {
    throw new AppError('validation_failed', 'Give either code or recovery_code.', [{ field: 'code', message: 'give either code or recovery_code (exactly one)' }]);
  }
  if (dto.recovery_code !== undefined) return { recoveryCode: dto.recovery_code };
  return /^[0-9]{6}$/.test(dto.code!) ? { code: dto.code } : { recoveryCode: dto.code };
}

export class MfaChallengeView {
  @ApiProperty({ enum: [true] }) mfa_required!: boolean;
  @ApiProperty({ description: 'Single use; send it with a code to POST /auth/mfa/verify.' }) mfa_token!: string;
  @ApiProperty({ type: 'integer', example: 300, description: 'Seconds the token stays valid.' }) expires_in!: number;
}

export class TotpSetupView {
  @ApiProperty({ example: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP', description: 'Base32 secret, for typing into an authenticator app.' }) secret!: string;
  @ApiProperty({ example: 'otpauth://totp/Persona%20Studio:ada%40example.com?secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP&issuer=Persona%20Studio&algorithm=SHA1&digits=6&period=30', description: 'The same secret as a QR-code URI.' })
  otpauth_uri!: string;
}

export class RecoveryCodesView {
  @ApiProperty({ type: [String], description: 'Ten one-time codes, shown only in this answer: keep them somewhere safe.' }) recovery_codes!: string[];
}

export class MfaStatusInnerView {
  @ApiProperty() enabled!: boolean;
  @ApiProperty({ description: 'A secret is set up and waits for a code to enable it.' }) pending!: boolean;
  @ApiProperty({ type: 'integer' }) recovery_codes_remaining!: number;
}

export class MfaStatusView {
  @ApiProperty({ type: MfaStatusInnerView }) mfa!: MfaStatusInnerView;
}
