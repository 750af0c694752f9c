import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { Equals, IsEmail, IsNotEmpty, IsOptional, IsString, Length, Matches, MaxLength } from 'class-validator';
import { Trim } from '../../../../platform/http/index.js';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../../domain/password-policy.js';

/** Emails arrive trimmed and lower case, so look-ups and the unique index agree. */
function NormalizedEmail(): PropertyDecorator {
  return Transform(({ value }) => (typeof value === 'string' ? value.trim().toLowerCase() : value));
}

export class RegisterDto {
  @ApiProperty({ example: 'ada@example.com', maxLength: 254 })
  @NormalizedEmail()
  @IsString()
  @MaxLength(254)
  @IsEmail({}, { message: 'email must be an email address' })
  email!: string;

  @ApiProperty({
    minLength: PASSWORD_MIN_LENGTH,
    maxLength: PASSWORD_MAX_LENGTH,
    description: 'Refused (400) when it is a common or breached password, one with only case changes, symbol swaps or digits added, or contains the email’s name part.',
  })
  @IsString()
  @Length(PASSWORD_MIN_LENGTH, PASSWORD_MAX_LENGTH)
  password!: string;

  @ApiProperty({ enum: [true] })
  @Equals(true, { message: 'accept_terms must be true' })
  accept_terms!: boolean;

  @ApiProperty({ enum: [true] })
  @Equals(true, { message: 'accept_privacy must be true' })
  accept_privacy!: boolean;

  @ApiPropertyOptional({ maxLength: 80, description: "Defaults to the email's local part." })
  @IsOptional()
  @Trim()
  @IsString()
  @MaxLength(80)
  display_name?: string;

  @ApiPropertyOptional({ maxLength: 10, example: 'en' })
  @IsOptional()
  @Trim()
  @IsString()
  @Length(2, 10)
  @Matches(/^[A-Za-z0-9_-]+$/, { message: 'locale must be a language tag such as en or pt-BR' })
  locale?: string;

  @ApiPropertyOptional({ description: 'An invitation token: the new account also joins the inviting workspace. It must be for this email; a bad, used or expired token creates no account.' })
  @IsOptional()
  @IsString()
  @Length(1, 128)
  invitation_token?: string;
}

export class LoginDto {
  @ApiProperty({ example: 'ada@example.com' })
  @NormalizedEmail()
  @IsString()
  @IsNotEmpty()
  @MaxLength(254)
  email!: string;

  @ApiProperty()
  @IsString()
  @IsNotEmpty()
  @MaxLength(PASSWORD_MAX_LENGTH)
  password!: string;
}

export class RefreshDto {
  @ApiProperty()
  @IsString()
  @Length(1, 512)
  refresh_token!: string;
}

export class LogoutDto {
  @ApiPropertyOptional({ description: 'Also ends the session of this refresh token, when it is yours.' })
  @IsOptional()
  @IsString()
  @Length(1, 512)
  refresh_token?: string;
}

export class SwitchWorkspaceDto {
  @ApiProperty({ example: 'ws_01HZX6FQJ5N6E7T2M3A4B5C6D7' })
  @IsString()
  @Matches(/^ws_[0-9A-HJKMNP-TV-Z]{26}$/, { message: 'workspace_id must be a workspace id (ws_…)' })
  workspace_id!: string;
}
