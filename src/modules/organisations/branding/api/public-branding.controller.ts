import { createHash } from 'node:crypto';
import { Controller, Get, Headers, Param, Query, Res } from '@nestjs/common';
import { ApiHeader, ApiNotModifiedResponse, ApiOkResponse, ApiOperation, ApiParam, ApiProduces, ApiTags } from '@nestjs/swagger';
import { pipeline } from 'node:stream/promises';
import type { Response } from 'express';
import { AppError } from '../../../../core/index.js';
import { Open } from '../../../../platform/auth/index.js';
import { ApiErrors, IdParam } from '../../../../platform/http/index.js';
import { Storage } from '../../../../platform/storage/index.js';
import { BrandingService } from '../application/branding.service.js';
import { PublicBrandingEnvelope, toPublicBrandingBody } from './dto/branding.body.js';
import { BrandingDomainQueryDto } from './dto/branding.dto.js';

/** Login pages fetch this on every visit: a few minutes in any cache is fresh enough after a change. */
const BRANDING_CACHE = 'public, max-age=300';
/** A logo URL carries its version, so a cached logo is never stale for long; a day bounds the rest. */
const LOGO_CACHE = 'public, max-age=86400';

/** A strong validator of the exact body: equal bytes, equal tag. */
export function strongEtag(body: string): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 32)}"`;
}

/** If-None-Match per RFC 9110 §13.1.2: `*`, or any listed tag (weak comparison, as it allows). */
export function matchesIfNoneMatch(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((t) => t.trim().replace(/^W\//, '') === etag);
}

/** What the dashboard's login page reads before anyone signs in (contract §14). */
@ApiTags('branding')
@Controller('branding')
export class PublicBrandingController {
  constructor(
    private readonly branding: BrandingService,
    private readonly storage: Storage,
  ) {}

  @Get()
  @Open({ authLimit: true })
  @ApiOperation({ operationId: 'getBrandingByDomain', summary: 'The branding of the workspace that has verified a custom domain (DNS TXT proof); any other domain is 404. No authentication, cacheable (ETag, If-None-Match).' })
  @ApiOkResponse({ type: PublicBrandingEnvelope })
  @ApiNotModifiedResponse({ description: 'If-None-Match named the current ETag.' })
  @ApiHeader({ name: 'If-None-Match', required: false })
  @ApiErrors('not_found', 'validation_failed', 'rate_limited')
  async byDomain(@Query() q: BrandingDomainQueryDto, @Headers('if-none-match') ifNoneMatch: string | undefined, @Res() res: Response): Promise<void> {
    const body = JSON.stringify({ branding: toPublicBrandingBody(await this.branding.byDomain(q.domain)) });
    const etag = strongEtag(body);
    res.setHeader('ETag', etag);
    res.setHeader('Cache-Control', BRANDING_CACHE);
    if (matchesIfNoneMatch(ifNoneMatch, etag)) {
      res.status(304).end();
      return;
    }
    res.status(200).type('application/json').send(body);
  }

  @Get('logo/:workspaceId')
  @Open({ openLimit: true })
  @ApiOperation({ operationId: 'getBrandingLogo', summary: 'A workspace logo, public (it shows on the login page); the URL comes from a branding answer.' })
  @ApiParam({ name: 'workspaceId' })
  @ApiProduces('image/png', 'image/jpeg', 'image/webp')
  @ApiErrors('not_found')
  async logo(@Param('workspaceId', new IdParam('ws', 'Logo')) workspaceId: string, @Res() res: Response): Promise<void> {
    const key = await this.branding.logoKey(workspaceId);
    const object = key ? await this.storage.open(key) : null;
    if (!object) throw AppError.notFound('Logo');
    res.status(200);
    res.setHeader('Content-Type', object.contentType);
    if (object.size !== undefined) res.setHeader('Content-Length', String(object.size));
    res.setHeader('Cache-Control', LOGO_CACHE);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');
    res.setHeader('Content-Security-Policy', "default-src 'none'; sandbox");
    try {
      await pipeline(object.stream, res);
    } catch {
      // The client went away or the store failed mid-stream; the headers are gone, so just stop.
      res.destroy();
    }
  }
}
