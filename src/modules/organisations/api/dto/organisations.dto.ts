import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import { IsBoolean, IsEmail, IsIn, IsInt, IsObject, IsOptional, IsString, Length, Matches, Max, MaxLength, Min, ValidateNested } from 'class-validator';
import { WORKSPACE_ROLES, type WorkspaceRole } from '../../../../core/index.js';
import { Present, QueryInt, Trim } from '../../../../platform/http/index.js';
import { AUDIT_ACTIONS, type AuditAction } from '../../../audit/index.js';
import { UpdateBrandingDto } from '../../branding/index.js';
import { SLUG_PATTERN } from '../../domain/membership-rules.js';

const ULID = '[0-9A-HJKMNP-TV-Z]{26}';

export class CreateOrganisationDto {
  @ApiProperty({ minLength: 1, maxLength: 80, example: 'Acme Studio' })
  @Trim()
  @IsString()
  @Length(1, 80)
  name!: string;

  @ApiPropertyOptional({ pattern: SLUG_PATTERN.source, example: 'acme-studio', description: 'Unique; lower case letters, digits and hyphens (as on PUT). Default: none.' })
  @Present()
  @Trim()
  @IsString()
  @Matches(SLUG_PATTERN, { message: 'slug must be 3 to 40 lower case letters, digits or hyphens' })
  slug?: string;
}

export class UpdateOrganisationDto {
  @ApiPropertyOptional({ minLength: 1, maxLength: 80 })
  @Present()
  @Trim()
  @IsString()
  @Length(1, 80)
  name?: string;

  @ApiPropertyOptional({ pattern: SLUG_PATTERN.source, example: 'acme-studio', description: 'Unique; lower case letters, digits and hyphens.' })
  @Present()
  @Trim()
  @IsString()
  @Matches(SLUG_PATTERN, { message: 'slug must be 3 to 40 lower case letters, digits or hyphens' })
  slug?: string;

  @ApiPropertyOptional({ description: 'Require two-factor sign-in of every member (owner only; to turn it on, have it on yourself). Members without it are refused with 403 `mfa_required` until they enable it.' })
  @Present()
  @IsBoolean()
  require_mfa?: boolean;

  @ApiPropertyOptional({ type: UpdateBrandingDto, description: 'White-label branding, changed with the rest in one transaction (as `PUT …/branding`).' })
  @Present()
  @IsObject()
  @ValidateNested()
  @Type(() => UpdateBrandingDto)
  branding?: UpdateBrandingDto;
}

export class AddMemberDto {
  /**
   * An email only: a user id would tell the inviter whether that id is an account (an unknown one
   * could not stand for any email) and whose email it is. Inviting answers the same for every email.
   */
  @ApiProperty({ example: 'ada@example.com', description: 'Who to invite (they must accept). The answer is the same whether or not the email has an account.' })
  @Transform(({ value }) => (typeof value === 'string' ? value.trim().toLowerCase() : value))
  @IsString()
  @MaxLength(254)
  @IsEmail({}, { message: 'email must be an email address' })
  email!: string;

  @ApiProperty({ enum: WORKSPACE_ROLES })
  @IsIn(WORKSPACE_ROLES)
  role!: WorkspaceRole;
}

export class ChangeRoleDto {
  @ApiProperty({ enum: WORKSPACE_ROLES })
  @IsIn(WORKSPACE_ROLES)
  role!: WorkspaceRole;
}

export const AUDIT_PAGE_MAX = 200;

export class AuditLogQueryDto {
  @ApiPropertyOptional({ minimum: 1, maximum: AUDIT_PAGE_MAX, default: 50 })
  @IsOptional()
  @QueryInt()
  @IsInt()
  @Min(1)
  @Max(AUDIT_PAGE_MAX)
  limit?: number;

  @ApiPropertyOptional({ description: 'An entry id: entries older than it (the `next_before` of the last page).' })
  @IsOptional()
  @Matches(new RegExp(`^log_${ULID}$`), { message: 'before must be an audit entry id (log_…)' })
  before?: string;

  @ApiPropertyOptional({ enum: AUDIT_ACTIONS })
  @IsOptional()
  @IsIn(AUDIT_ACTIONS)
  action?: AuditAction;

  @ApiPropertyOptional({ description: 'Only entries by this user.' })
  @IsOptional()
  @Matches(new RegExp(`^user_${ULID}$`), { message: 'actor_id must be a user id (user_…)' })
  actor_id?: string;
}
