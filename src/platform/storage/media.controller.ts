import { Controller, Get, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiProduces, ApiTags } from '@nestjs/swagger';
import { pipeline } from 'node:stream/promises';
import type { Request, Response } from 'express';
import { AppError } from '../../core/index.js';
import { Open } from '../auth/index.js';
import { ApiErrors } from '../http/index.js';
import { isStorageKey } from './storage-keys.js';
import { Storage } from './storage.types.js';

/**
 * Serves stored media back. Open on purpose: keys carry random ULIDs, so a URL is a capability,
 * and <img> tags cannot send bearer tokens.
 */
@ApiTags('media')
@Controller('media')
export class MediaController {
  constructor(private readonly storage: Storage) {}

  @Get('*key')
  @Open()
  @ApiOperation({ summary: 'Download a stored media file by the URL an upload or generation returned.' })
  @ApiParam({ name: 'key', description: 'Storage key, e.g. characters/char_.../ref_....png' })
  @ApiProduces('image/jpeg', 'image/png', 'image/webp', 'video/mp4', 'audio/mpeg')
  @ApiErrors('not_found')
  async download(@Req() req: Request, @Res() res: Response): Promise<void> {
    const raw: unknown = (req.params as Record<string, unknown>).key;
    const key = Array.isArray(raw) ? raw.join('/') : raw;
    if (!isStorageKey(key)) throw AppError.notFound('Media');
    const object = await this.storage.open(key);
    if (!object) throw AppError.notFound('Media');
    res.status(200);
    res.setHeader('Content-Type', object.contentType);
    if (object.size !== undefined) res.setHeader('Content-Length', String(object.size));
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
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
