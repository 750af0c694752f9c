import { ApiProperty } from '@nestjs/swagger';
import { CHECK_OUTCOMES, DOMAIN_FAILURES, DOMAIN_STATUSES } from '../../domain/domain-claim.js';
import type { BrandingView, DomainVerificationView } from '../../application/branding.service.js';

/** What anyone may read: the branding of a verified custom domain, on the login page. */
export class PublicBrandingBody {
  @ApiProperty({ type: String, nullable: true }) display_name!: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'Public and cacheable: it changes when the logo does.' }) logo_url!: string | null;
  @ApiProperty({ type: String, nullable: true, example: '#1A2B3C' }) primary_color!: string | null;
  @ApiProperty({ type: String, nullable: true, example: '#FFFFFF' }) secondary_color!: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'The claimed domain in its ASCII (A-label, punycode) form.', example: 'xn--bcher-kva.example' }) custom_domain!: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'The same domain as people read it (Unicode).', example: 'bücher.example' }) custom_domain_unicode!: string | null;
  @ApiProperty({ type: String, nullable: true, enum: DOMAIN_STATUSES, description: 'Branding is served by domain only when `verified`.' }) custom_domain_status!: string | null;
  @ApiProperty({ type: String, nullable: true }) support_email!: string | null;
  @ApiProperty({ type: String, format: 'date-time' }) updated_at!: string;
}

export class PublicBrandingEnvelope {
  @ApiProperty({ type: PublicBrandingBody }) branding!: PublicBrandingBody;
}

/** A custom-domain claim and the DNS record that proves it. */
export class DomainVerificationBody {
  @ApiProperty({ example: 'xn--bcher-kva.example' }) domain!: string;
  @ApiProperty({ example: 'bücher.example' }) domain_unicode!: string;
  @ApiProperty({ enum: DOMAIN_STATUSES }) status!: string;
  @ApiProperty({ type: String, nullable: true, enum: DOMAIN_FAILURES, description: 'Why the claim failed; null unless `failed`.' }) failure!: string | null;
  @ApiProperty({ type: String, nullable: true, enum: CHECK_OUTCOMES, description: 'What the last DNS check saw; null before the first.' }) last_check_outcome!: string | null;
  @ApiProperty({ enum: ['TXT'] }) record_type!: 'TXT';
  @ApiProperty({ description: 'The DNS name to publish the TXT record at.', example: '_persona-studio.xn--bcher-kva.example' }) record_name!: string;
  @ApiProperty({ description: 'The TXT record value that proves this claim.', example: 'persona-studio-verification=3f1c…' }) record_value!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) last_checked_at!: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) verified_at!: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'When it is checked again on its own; null for a failed claim.' }) next_check_at!: string | null;
}

export class DomainVerificationEnvelope {
  @ApiProperty({ type: DomainVerificationBody }) domain_verification!: DomainVerificationBody;
}

/** What the workspace's members read: the public fields and the state of the domain's proof. */
export class BrandingBody extends PublicBrandingBody {
  @ApiProperty({ type: DomainVerificationBody, nullable: true, description: 'Null without a custom domain.' }) domain_verification!: DomainVerificationBody | null;
}

export class BrandingEnvelope {
  @ApiProperty({ type: BrandingBody }) branding!: BrandingBody;
}

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

export function toDomainVerificationBody(v: DomainVerificationView): DomainVerificationBody {
  return {
    domain: v.domain,
    domain_unicode: v.domainUnicode,
    status: v.status,
    failure: v.failure,
    last_check_outcome: v.lastOutcome,
    record_type: 'TXT',
    record_name: v.recordName,
    record_value: v.recordValue,
    last_checked_at: iso(v.lastCheckedAt),
    verified_at: iso(v.verifiedAt),
    next_check_at: iso(v.nextCheckAt),
  };
}

export function toPublicBrandingBody(v: BrandingView): PublicBrandingBody {
  return {
    display_name: v.displayName,
    logo_url: v.logoUrl,
    primary_color: v.primaryColor,
    secondary_color: v.secondaryColor,
    custom_domain: v.customDomain,
    custom_domain_unicode: v.customDomainUnicode,
    custom_domain_status: v.customDomainStatus,
    support_email: v.supportEmail,
    updated_at: v.updatedAt.toISOString(),
  };
}

export function toBrandingBody(v: BrandingView): BrandingBody {
  return { ...toPublicBrandingBody(v), domain_verification: v.domainVerification ? toDomainVerificationBody(v.domainVerification) : null };
}
