import { Controller, Get, Headers, Param, Res } from '@nestjs/common';
import { ApiFoundResponse, ApiHeader, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { Open } from '../../../platform/auth/index.js';
import { ApiErrors } from '../../../platform/http/index.js';
import { Redirects } from '../application/redirects.js';

/** The public side of affiliate links: `/l/{shortcode}` sends the visitor on, counting the click. */
@ApiTags('monetization')
@Controller('l')
export class RedirectController {
  constructor(private readonly redirects: Redirects) {}

  @Get(':shortcode')
  @Open({ openLimit: true })
  @ApiOperation({
    operationId: 'followLink',
    summary: 'No credentials. 302 to the link’s destination; a visit by a person (not a bot by its User-Agent) is counted. Never cached by browsers.',
  })
  @ApiHeader({ name: 'User-Agent', required: false, description: 'Crawlers, link previewers, scripts and an empty User-Agent are not counted.' })
  @ApiFoundResponse({ description: 'To the destination (Location header).', headers: { Location: { description: 'The destination URL.', schema: { type: 'string' } } } })
  @ApiErrors('not_found')
  async follow(@Param('shortcode') shortcode: string, @Headers('user-agent') userAgent: string | undefined, @Res() res: Response): Promise<void> {
    const destination = await this.redirects.follow(shortcode, userAgent);
    res.status(302).setHeader('Location', destination);
    res.setHeader('Cache-Control', 'no-store');
    res.end();
  }
}
