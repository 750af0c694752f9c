import { ApiProperty } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsEmail, IsNotEmpty, IsString, MaxLength } from 'class-validator';
import { PASSWORD_MAX_LENGTH } from '../../domain/password-policy.js';

export class VerifyEmailDto {
  @ApiProperty({ description: 'The token from the link in the verification or email-change message.' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(256)
  token!: string;
}

export class ChangeEmailDto {
  @ApiProperty({ description: 'Your current password.' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(PASSWORD_MAX_LENGTH)
  password!: string;

  @ApiProperty({ example: 'ada@new.example.com', maxLength: 254, description: 'The new address; it takes effect once the link mailed to it is opened.' })
  // Trimmed and lower case, as at sign-up, so the look-up and the unique index agree.
  @Transform(({ value }) => (typeof value === 'string' ? value.trim().toLowerCase() : value))
  @IsString()
  @MaxLength(254)
  @IsEmail({}, { message: 'email must be an email address' })
  email!: string;
}

/** OpenAPI shapes of the answers. */
export class VerificationSentView {
  @ApiProperty({ format: 'date-time', description: 'When the mailed link stops working.' }) expires_at!: string;
}

export class EmailChangeRequestedView {
  @ApiProperty({ description: 'The address the confirmation link was mailed to; your address stays the same until it is opened.' }) pending_email!: string;
  @ApiProperty({ format: 'date-time' }) expires_at!: string;
}

export class EmailConfirmedView {
  @ApiProperty({ enum: ['verify', 'change'], description: '`verify`: your address is verified; `change`: your account moved to this address.' }) purpose!: string;
  @ApiProperty() email!: string;
  @ApiProperty({ enum: [true] }) email_verified!: boolean;
}
