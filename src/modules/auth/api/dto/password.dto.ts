import { ApiProperty } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsEmail, IsNotEmpty, IsString, Length, MaxLength } from 'class-validator';
import { Trim } from '../../../../platform/http/index.js';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../../domain/password-policy.js';

const NEW_PASSWORD_RULES =
  'The rules of registration: refused (400) when it is a common or breached password, one with only case changes, symbol swaps or digits added, or contains the email’s name part.';

export class ForgotPasswordDto {
  @ApiProperty({ example: 'ada@example.com', maxLength: 254 })
  @Transform(({ value }) => (typeof value === 'string' ? value.trim().toLowerCase() : value))
  @IsString()
  @MaxLength(254)
  @IsEmail({}, { message: 'email must be an email address' })
  email!: string;
}

export class ResetPasswordDto {
  @ApiProperty({ description: 'The token of the mailed link (`/reset-password?token=…`).' })
  @Trim()
  @IsString()
  @Length(1, 256)
  token!: string;

  @ApiProperty({ minLength: PASSWORD_MIN_LENGTH, maxLength: PASSWORD_MAX_LENGTH, description: NEW_PASSWORD_RULES })
  @IsString()
  @Length(PASSWORD_MIN_LENGTH, PASSWORD_MAX_LENGTH)
  password!: string;
}

export class ChangePasswordDto {
  @ApiProperty()
  @IsString()
  @IsNotEmpty()
  @MaxLength(PASSWORD_MAX_LENGTH)
  current_password!: string;

  @ApiProperty({ minLength: PASSWORD_MIN_LENGTH, maxLength: PASSWORD_MAX_LENGTH, description: NEW_PASSWORD_RULES })
  @IsString()
  @Length(PASSWORD_MIN_LENGTH, PASSWORD_MAX_LENGTH)
  password!: string;
}

/** The answer to every accepted forgot-password request, whether or not the address has an account. */
export class ForgotPasswordView {
  @ApiProperty({ example: 'If an account uses this address, a link to reset its password is on its way.' })
  message!: string;
}

export const FORGOT_PASSWORD_ANSWER: ForgotPasswordView = {
  message: 'If an account uses this address, a link to reset its password is on its way. It works once, for a limited time.',
};
