import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { Request, Response } from 'express';
import { defer, from, mergeMap, Observable, of, catchError, throwError } from 'rxjs';
import type { Caller } from '../../core/index.js';
import { assertValidKey, IDEMPOTENCY_HEADER, REPLAYED_HEADER, requestHash } from './idempotency-key.js';
import { IdempotencyStore, type Claim } from './idempotency.store.js';

/**
 * Makes a POST safe to retry when the client sends an `Idempotency-Key`: the first request under a
 * key runs and its answer is stored; a retry with the same request gets that answer again, marked
 * `Idempotent-Replayed: true`. A request that fails stores nothing: its key is released, so a
 * retry runs the work again (errors here are mostly "not yet": credits, limits, validation).
 * Runs after the guard (the caller is known: keys are per workspace) and before validation.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(private readonly store: IdempotencyStore) {}

  intercept(ctx: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (ctx.getType() !== 'http') return next.handle();
    const req = ctx.switchToHttp().getRequest<Request & { caller?: Caller }>();
    const res = ctx.switchToHttp().getResponse<Response>();
    const key = req.header(IDEMPOTENCY_HEADER);
    if (key === undefined || !req.caller) return next.handle();
    assertValidKey(key);
    const request = {
      workspaceId: req.caller.workspaceId,
      key,
      method: req.method,
      path: req.originalUrl,
      hash: requestHash(req.method, req.originalUrl, req.body),
    };
    return defer(() => this.store.claim(request)).pipe(
      mergeMap((claimed) => {
        if (claimed.kind === 'replay') {
          res.setHeader(REPLAYED_HEADER, 'true');
          res.status(claimed.status);
          return of(claimed.body);
        }
        return this.run(claimed, res, next);
      }),
    );
  }

  private run(claim: Claim, res: Response, next: CallHandler): Observable<unknown> {
    return next.handle().pipe(
      mergeMap((body) => from(this.store.complete(claim, res.statusCode, body).then(() => body))),
      catchError((err: unknown) => from(this.store.release(claim)).pipe(mergeMap(() => throwError(() => err)))),
    );
  }
}
