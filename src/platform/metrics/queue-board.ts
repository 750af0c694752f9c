import { createBullBoard } from '@bull-board/api';
import type { IServerAdapter } from '@bull-board/api/typings/app';
import { BullAdapter } from '@bull-board/api/bullAdapter';
import { ExpressAdapter } from '@bull-board/express';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type Bull from 'bull';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { AppExceptionFilter } from '../http/index.js';
import { bullQueueOf, JobTransport } from '../queue/index.js';
import { BOARD_PATH, BOARD_SESSION_SUBPATH, boardAdmin, noBoard } from './board-access.js';

/** Bull Board over the jobs queue, read-only: the job rows are the truth, and a board retry or clean would go around them. */
function boardRouter(queue: Bull.Queue): RequestHandler {
  const adapter = new ExpressAdapter().setBasePath(BOARD_PATH);
  createBullBoard({
    queues: [new BullAdapter(queue, { readOnlyMode: true })],
    // @bull-board/express 9.10.1 (the newest) brings its own @bull-board/api 9.10.1, whose types
    // differ from 9.10.2's by a private field only; at run time the adapter just serves what it is given.
    serverAdapter: adapter as unknown as IServerAdapter,
    options: { uiConfig: { boardTitle: 'Persona Studio jobs' } },
  });
  return adapter.getRouter() as RequestHandler;
}

/**
 * Mounts the dashboard before Nest's routes. Without Redis there is no Bull queue to show, and the
 * path answers 404 saying so.
 */
export function mountQueueBoard(app: NestExpressApplication, errors: AppExceptionFilter): void {
  const queue = bullQueueOf(app.get(JobTransport, { strict: false }));
  const board = queue ? boardRouter(queue) : null;
  app.use(BOARD_PATH, (req: Request, res: Response, next: NextFunction) => {
    if (req.path === BOARD_SESSION_SUBPATH) return next();
    if (!board) return errors.reply(noBoard(), req, res);
    boardAdmin(req).then(
      () => board(req, res, next),
      (err: unknown) => errors.reply(err, req, res),
    );
  });
}
