import { Controller, HttpCode, Post, Req, Res } from '@nestjs/common';
import { ApiNoContentResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { AppConfig } from '../../config/index.js';
import { AppError, type Caller } from '../../core/index.js';
import { CurrentCaller, issueBoardToken, Product } from '../auth/index.js';
import { ApiErrors } from '../http/index.js';
import { BOARD_COOKIE, BOARD_COOKIE_SECONDS, BOARD_PATH, noBoard } from './board-access.js';

/**
 * Lets an admin's browser open the queue board: a navigation cannot carry a bearer header, so a
 * board-only token (its own key and audience, 15 minutes, tied to the caller's session) goes into
 * a cookie that only the board's path receives, never readable by scripts nor sent from another
 * site. The admin's access token never leaves the Authorization header.
 */
@ApiTags('operator')
@Controller('admin/queues')
@Product({ roles: ['admin'] })
@ApiErrors('unauthorized', 'session_required', 'forbidden', 'rate_limited', 'not_found')
export class QueueBoardController {
  constructor(private readonly config: AppConfig) {}

  @Post('session')
  @HttpCode(204)
  @ApiOperation({ operationId: 'openQueueBoard', summary: `Set the ${BOARD_COOKIE} cookie that opens the Bull queue board at ${BOARD_PATH} in a browser (admins; needs Redis).` })
  @ApiNoContentResponse({ description: `Cookie set for ${BOARD_COOKIE_SECONDS} s.` })
  openBoard(@CurrentCaller() caller: Caller, @Req() req: Request, @Res({ passthrough: true }) res: Response): void {
    if (!this.config.redisUrl) throw noBoard();
    if (caller.kind !== 'session' || !caller.sessionId) throw new AppError('session_required', 'The queue board opens from a signed-in session, not an API key.');
    const token = issueBoardToken({ ...caller, sessionId: caller.sessionId }, {
      jwtSecret: this.config.jwtSecret,
      issuer: this.config.jwtIssuer,
      ttlSeconds: BOARD_COOKIE_SECONDS,
      nowSeconds: Math.floor(Date.now() / 1000),
    });
    res.cookie(BOARD_COOKIE, token, {
      httpOnly: true,
      sameSite: 'strict',
      secure: req.secure,
      path: BOARD_PATH,
      maxAge: BOARD_COOKIE_SECONDS * 1000,
    });
  }
}
