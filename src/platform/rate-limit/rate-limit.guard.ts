import { Inject, Injectable, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { InjectThrottlerOptions, InjectThrottlerStorage, ThrottlerGuard, type ThrottlerLimitDetail, type ThrottlerModuleOptions, type ThrottlerStorage } from '@nestjs/throttler';
import type { Response } from 'express';
import { CountedCalls } from './counted-calls.js';
import { FixedMetadataReflector } from './fixed-metadata-reflector.js';
import { RateLimitHeaders } from './rate-limit-headers.js';
import { policyOf, type RateLimitedRequest } from './throttlers.js';

interface LoopbackCandidate {
  headers: Record<string, string | string[] | undefined>;
  socket?: { remoteAddress?: string };
}

/**
 * @nestjs/throttler's guard with the answers of contract §3: the throttler counts (through
 * `CounterThrottlerStorage`), decides and sets the headers; `RateLimitHeaders` gives them the
 * contract's names and form. Not a global guard of its own: the access guard calls it once a
 * request is authenticated (on sign-in routes, at once), so a 429 comes after a 401 and before a 403.
 * A loopback request for one already counted (`CountedCalls`: an MCP tool's route) is not counted.
 */
@Injectable()
export class RateLimitGuard extends ThrottlerGuard {
  private headers!: RateLimitHeaders;
  @Inject(CountedCalls) private readonly counted!: CountedCalls;

  constructor(@InjectThrottlerOptions() options: ThrottlerModuleOptions, @InjectThrottlerStorage() storage: ThrottlerStorage, reflector: Reflector) {
    super(options, storage, new FixedMetadataReflector(reflector));
  }

  override async onModuleInit(): Promise<void> {
    await super.onModuleInit();
    const windows = new Map<string, number>();
    for (const { name, ttl } of this.throttlers) {
      if (typeof ttl !== 'number' || name === undefined) throw new Error('every throttler needs a name and a fixed ttl');
      windows.set(name, ttl / 1000);
    }
    this.headers = new RateLimitHeaders(windows);
  }

  /** Whether `req` is this process's own loopback call for a request it already counted. */
  isCountedCall(req: LoopbackCandidate): boolean {
    return this.counted.isCounted(req.headers, req.socket?.remoteAddress);
  }

  protected override async shouldSkip(ctx: ExecutionContext): Promise<boolean> {
    return this.isCountedCall(ctx.switchToHttp().getRequest<LoopbackCandidate>()) || super.shouldSkip(ctx);
  }

  protected override setResponseHeader(res: Response, name: string, value: string | number): void {
    this.headers.set(res, name, value);
  }

  protected override async throwThrottlingException(ctx: ExecutionContext, detail: ThrottlerLimitDetail): Promise<void> {
    const http = ctx.switchToHttp();
    throw this.headers.refuse(http.getResponse<Response>(), policyOf(http.getRequest<RateLimitedRequest>()), detail);
  }
}
