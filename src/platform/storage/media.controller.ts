import { Controller, Get, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiProduces, ApiQuery, ApiTags } from '@nestjs/swagger';
import { pipeline } from 'node:stream/promises';
import type { Request, Response } from 'express';
import { AppError } from '../../core/index.js';
import { Open } from '../auth/index.js';
import { ApiErrors } from '../http/index.js';
import { EXPIRES_PARAM, MediaSigner, SIGNATURE_PARAM } from './media-signature.js';
import { Storage } from './storage.types.js';

/** One answer for an unsigned, tampered, expired or malformed URL: it says nothing about the file. */
const refused = (): AppError => new AppError('forbidden', 'This media URL is not valid or has expired.');

/**
 * Serves stored media to holders of a signed URL (API answers carry them; <img> tags cannot send
 * bearer tokens). Open as a route, but nothing is read before the signature and expiry check out.
 */
@ApiTags('media')
@Controller('media')
export class MediaController {
  constructor(
    private readonly storage: Storage,
    private readonly signer: MediaSigner,
  ) {}

  @Get('*key')
  @Open({ openLimit: true })
  @ApiOperation({ summary: 'Download a stored media file by the signed URL an API answer gave (it expires).' })
  @ApiParam({ name: 'key', description: 'Storage key, e.g. characters/char_.../ref_....png' })
  @ApiQuery({ name: EXPIRES_PARAM, description: 'Unix seconds the URL is valid until.' })
  @ApiQuery({ name: SIGNATURE_PARAM, description: 'HMAC of the path and the expiry.' })
  @ApiProduces('image/jpeg', 'image/png', 'image/webp', 'video/mp4', 'audio/mpeg')
  @ApiErrors('forbidden', 'not_found', 'rate_limited')
  async download(@Req() req: Request, @Res() res: Response): Promise<void> {
    const raw: unknown = (req.params as Record<string, unknown>).key;
    const key = Array.isArray(raw) ? raw.join('/') : raw;
    const query = req.query as Record<string, unknown>;
    const verified = this.signer.verify(key, query[EXPIRES_PARAM], query[SIGNATURE_PARAM], Math.floor(Date.now() / 1000));
    if (!verified) throw refused();
    const object = await this.storage.open(verified.key);
    if (!object) throw AppError.notFound('Media');
    res.status(200);
    res.setHeader('Content-Type', object.contentType);
    if (object.size !== undefined) res.setHeader('Content-Length', String(object.size));
    res.setHeader('X-Content-Type-Options', 'nosniff');
    // Private media: no shared cache keeps it, and no browser longer than the URL lives.
    res.setHeader('Cache-Control', `private, max-age=${verified.remainingSeconds}`);
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
