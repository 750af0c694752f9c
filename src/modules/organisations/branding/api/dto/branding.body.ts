import { ApiProperty } from '@nestjs/swagger';
import type { BrandingView } from '../../application/branding.service.js';

export class BrandingBody {
  @ApiProperty({ type: String, nullable: true }) display_name!: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'Public and cacheable: it changes when the logo does.' }) logo_url!: string | null;
  @ApiProperty({ type: String, nullable: true, example: '#1A2B3C' }) primary_color!: string | null;
  @ApiProperty({ type: String, nullable: true, example: '#FFFFFF' }) secondary_color!: string | null;
  @ApiProperty({ type: String, nullable: true }) custom_domain!: string | null;
  @ApiProperty({ type: String, nullable: true }) support_email!: string | null;
  @ApiProperty({ type: String, format: 'date-time' }) updated_at!: string;
}

export class BrandingEnvelope {
  @ApiProperty({ type: BrandingBody }) branding!: BrandingBody;
}

export function toBrandingBody(v: BrandingView): BrandingBody {
  return {
    display_name: v.displayName,
    logo_url: v.logoUrl,
    primary_color: v.primaryColor,
    secondary_color: v.secondaryColor,
    custom_domain: v.customDomain,
    support_email: v.supportEmail,
    updated_at: v.updatedAt.toISOString(),
  };
}
