import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsNotEmpty, IsOptional, IsString, Length, Matches, MaxLength } from 'class-validator';
import { PASSWORD_MAX_LENGTH } from '../../domain/password-policy.js';

/** Codes arrive without the spaces apps show in them ("123 456"). */
function WithoutSpaces(): PropertyDecorator {
  return Transform(({ value }) => (typeof value === 'string' ? value.replace(/\s/g, '') : value));
}

export class EnableTotpDto {
  @ApiProperty({ example: '123456', description: 'The current 6-digit code from the authenticator app.' })
  @WithoutSpaces()
  @IsString()
  @Matches(/^[0-9]{6}$/, { message: 'code must be the 6-digit code from your authenticator app' })
  code!: string;
}

/** A second factor: `code` (the app's 6 digits, or a recovery code) or `recovery_code`, exactly one. */
export class SecondFactorDto {
  @ApiPropertyOptional({ example: '123456', description: 'The 6-digit code from the authenticator app, or a recovery code.' })
  @IsOptional()
  @WithoutSpaces()
  @IsString()
  @Length(1, 32)
  code?: string;

  @ApiPropertyOptional({ example: 'k7m2p-x9q4r', description: 'One of the recovery codes given when two-factor was enabled; each works once.' })
  @IsOptional()
  @WithoutSpaces()
  @IsString()
  @Length(1, 32)
  recovery_code?: string;
}

export class DisableMfaDto extends SecondFactorDto {
  @ApiProperty({ description: 'Your current password.' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(PASSWORD_MAX_LENGTH)
  password!: string;
}

export class VerifyMfaDto extends SecondFactorDto {
  @ApiProperty({ description: 'The `mfa_token` from POST /auth/login.' })
  @IsString()
  @Length(1, 512)
  mfa_token!: string;
}
