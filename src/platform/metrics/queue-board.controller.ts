import { Controller, HttpCode, Post, Req, Res } from '@nestjs/common';
import { ApiNoContentResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { AppConfig } from '../../config/index.js';
import { bearerTokenOf, Product } from '../auth/index.js';
import { ApiErrors } from '../http/index.js';
import { BOARD_COOKIE, BOARD_COOKIE_SECONDS, BOARD_PATH, noBoard } from './board-access.js';

/**
 * Lets an admin's browser open the queue board: a navigation cannot carry a bearer header, so the
 * caller's own access token goes into a cookie that only the board's path receives, never readable
 * by scripts nor sent from another site. The board verifies it on every request like a bearer token.
 */
@ApiTags('operator')
@Controller('admin/queues')
@Product({ roles: ['admin'] })
@ApiErrors('unauthorized', 'session_required', 'forbidden', 'rate_limited', 'not_found')
export class QueueBoardController {
  constructor(private readonly config: AppConfig) {}

  @Post('session')
  @HttpCode(204)
  @ApiOperation({ summary: `Set the ${BOARD_COOKIE} cookie that opens the Bull queue board at ${BOARD_PATH} in a browser (admins; needs Redis).` })
  @ApiNoContentResponse({ description: `Cookie set for ${BOARD_COOKIE_SECONDS} s.` })
  openBoard(@Req() req: Request, @Res({ passthrough: true }) res: Response): void {
    if (!this.config.redisUrl) throw noBoard();
    // The guard let a session token through; it is the one the cookie carries.
    res.cookie(BOARD_COOKIE, bearerTokenOf(req)!, {
      httpOnly: true,
      sameSite: 'strict',
      secure: req.secure,
      path: BOARD_PATH,
      maxAge: BOARD_COOKIE_SECONDS * 1000,
    });
  }
}
