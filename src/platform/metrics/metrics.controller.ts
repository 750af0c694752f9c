import { Controller, Get, Req, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Request, Response } from 'express';
import { AppConfig } from '../../config/index.js';
import { AppError } from '../../core/index.js';
import { bearerTokenOf, Open } from '../auth/index.js';
import { ApiErrors } from '../http/index.js';
import { Metrics } from './metrics.js';

/** Compared as digests: equal lengths whatever was sent, so the comparison time tells nothing. */
function sameSecret(given: string, expected: string): boolean {
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/**
 * Prometheus scrapes here. Open to the global guard (a scraper holds no session or API key) and
 * guarded by its own token, METRICS_TOKEN; without one configured the route does not exist.
 */
@ApiTags('operator')
@Controller('metrics')
export class MetricsController {
  constructor(
    private readonly config: AppConfig,
    private readonly metrics: Metrics,
  ) {}

  @Get()
  @Open()
  @ApiOperation({ summary: 'Prometheus metrics of this API process; send `Authorization: Bearer <METRICS_TOKEN>`.' })
  @ApiProduces('text/plain')
  @ApiOkResponse({ description: 'The Prometheus text exposition format.', content: { 'text/plain': { schema: { type: 'string' } } } })
  @ApiErrors('unauthorized', 'not_found')
  async scrape(@Req() req: Request, @Res() res: Response): Promise<void> {
    const expected = this.config.metricsToken;
    if (expected === undefined) throw new AppError('not_found', `No route ${req.method} ${req.originalUrl.split('?')[0]}.`);
    const given = bearerTokenOf(req);
    if (given === null || !sameSecret(given, expected)) throw new AppError('unauthorized', 'Send the metrics token as a bearer token.');
    const body = await this.metrics.scrape();
    res.status(200).setHeader('Content-Type', this.metrics.contentType);
    res.send(body);
  }
}
