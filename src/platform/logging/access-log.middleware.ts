import { Logger } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { loggablePath } from './path-redaction.js';

const logger = new Logger('Access');

/** One line per request with its id, status and duration; secrets in the path are redacted (see path-redaction). */
export function accessLog(req: Request, res: Response, next: NextFunction): void {
  const started = process.hrtime.bigint();
  res.on('finish', () => {
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    const caller = (req as Request & { caller?: { workspaceId: string } }).caller;
    logger.log({
      msg: 'request',
      request_id: req.id,
      method: req.method,
      path: loggablePath(req),
      status: res.statusCode,
      duration_ms: Math.round(ms * 10) / 10,
      workspace_id: caller?.workspaceId,
    });
  });
  next();
}
