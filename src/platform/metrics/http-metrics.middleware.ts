import type { NextFunction, Request, Response } from 'express';
import { Metrics, UNMATCHED_ROUTE } from './metrics.js';

/**
 * The route pattern a request matched (`/api/v1/characters/:id`), read once it is answered, when
 * Express knows it. Nest mounts its routes with the prefix, so `baseUrl` is empty for them and
 * holds the mount path of a mounted router. A request no route matched counts as one label, and so
 * does one caught by a catch-all (`*path`: Nest answers its 404s from one under the prefix).
 */
export function routeLabelOf(req: Pick<Request, 'baseUrl'> & { route?: { path?: unknown } }): string {
  const path = req.route?.path;
  if (typeof path !== 'string' || /^\/?\*/.test(path)) return UNMATCHED_ROUTE;
  return `${req.baseUrl ?? ''}${path}`;
}

/** Times every request to its answer; one aborted before it is answered is not counted. */
export function httpMetrics(metrics: Metrics) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      metrics.httpRequest(req.method, routeLabelOf(req), res.statusCode, seconds);
    });
    next();
  };
}
