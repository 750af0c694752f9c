import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsString, Length, ValidateBy, ValidateIf, type ValidationOptions } from 'class-validator';
import { Trim } from '../../../../../platform/http/index.js';
import { colorProblem, customDomainProblem, displayNameProblem, supportEmailProblem, type BrandingChanges } from '../../domain/branding.js';

/** A field checked by one of the domain's rules, whose message is the rule's own. */
function Satisfies(name: string, problem: (value: unknown) => string | null, options?: ValidationOptions): PropertyDecorator {
  return ValidateBy({ name, validator: { validate: (v) => problem(v) === null, defaultMessage: (args) => problem(args?.value) ?? `${name} failed` } }, options);
}

/** Left out: unchanged. `null`: cleared. */
const Settable = (): PropertyDecorator => ValidateIf((_o: object, v: unknown) => v !== undefined && v !== null);

export class UpdateBrandingDto {
  @ApiPropertyOptional({ nullable: true, maxLength: 100, example: 'Acme Creators' })
  @Trim()
  @Settable()
  @Satisfies('displayName', displayNameProblem)
  display_name?: string | null;

  @ApiPropertyOptional({ nullable: true, pattern: '^#[0-9A-Fa-f]{6}$', example: '#1A2B3C' })
  @Settable()
  @Satisfies('primaryColor', (v) => colorProblem(v, 'primary_color'))
  primary_color?: string | null;

  @ApiPropertyOptional({ nullable: true, pattern: '^#[0-9A-Fa-f]{6}$', example: '#FFFFFF' })
  @Settable()
  @Satisfies('secondaryColor', (v) => colorProblem(v, 'secondary_color'))
  secondary_color?: string | null;

  @ApiPropertyOptional({ nullable: true, maxLength: 253, description: 'A bare hostname with at least one dot, not an IP address; Unicode names are normalised (UTS-46) and stored in their A-label form. Served only after DNS TXT verification; refused when another workspace has verified it (domain_taken) or a look-alike of it (domain_confusable).', example: 'studio.acme.com' })
  @Trim()
  @Settable()
  @Satisfies('customDomain', customDomainProblem)
  custom_domain?: string | null;

  @ApiPropertyOptional({ nullable: true, maxLength: 254, description: 'The address alone (no display name): an ASCII local part of at most 64 characters and a hostname domain, stored with the domain in its A-label form.', example: 'help@acme.com' })
  @Trim()
  @Settable()
  @Satisfies('supportEmail', supportEmailProblem)
  support_email?: string | null;
}

export function toChanges(dto: UpdateBrandingDto): BrandingChanges {
  return {
    displayName: dto.display_name,
    primaryColor: dto.primary_color,
    secondaryColor: dto.secondary_color,
    customDomain: dto.custom_domain,
    supportEmail: dto.support_email,
  };
}

export class BrandingDomainQueryDto {
  @ApiProperty({ description: 'The host the dashboard is served on.', example: 'studio.acme.com' })
  @Trim()
  @IsString()
  @Length(1, 253)
  domain!: string;
}
