import http from 'node:http';
import type { NestApplicationOptions } from '@nestjs/common';
import { ExpressAdapter } from '@nestjs/platform-express';
import type { Express } from 'express';
import { RouteIndex } from './route-index.js';

/** The request and response classes a Node server builds its messages with. */
type MessageClasses = Pick<http.ServerOptions, 'IncomingMessage' | 'ServerResponse'>;

/** Copies onto `target` every property of `from` and of its prototypes up to `base`, the nearest winning. */
function copyUpTo(target: object, from: object, base: object): void {
  const chain: object[] = [];
  for (let o: object | null = from; o && o !== base; o = Object.getPrototypeOf(o) as object | null) chain.unshift(o);
  for (const o of chain) Object.defineProperties(target, Object.getOwnPropertyDescriptors(o));
}

/**
 * Classes whose instances are born with `app`'s request and response prototypes, which `app` then
 * uses as its own. Express gives each request and response its methods by swapping their
 * prototypes as they arrive (`Object.setPrototypeOf`). V8 then promotes what each request allocates
 * into the old space instead of collecting it young: a bare Express app at 300 requests/s grew its
 * old space by about 12 KB a request, plain `node:http` by nothing (docs/benchmarks.md). Built as
 * these classes, a request already has the prototype Express sets, so the swap changes nothing.
 */
function expressMessageClasses(app: Express): MessageClasses {
  class ExpressRequest extends http.IncomingMessage {}
  class ExpressResponse extends http.ServerResponse {}
  copyUpTo(ExpressRequest.prototype, app.request, http.IncomingMessage.prototype);
  copyUpTo(ExpressResponse.prototype, app.response, http.ServerResponse.prototype);
  app.request = ExpressRequest.prototype as unknown as Express['request'];
  app.response = ExpressResponse.prototype as unknown as Express['response'];
  // ServerResponse's type is generic over its request; ExpressResponse serves ExpressRequest only.
  return { IncomingMessage: ExpressRequest, ServerResponse: ExpressResponse as typeof http.ServerResponse };
}

/**
 * Nest's Express adapter with an HTTP server that builds its requests and responses as
 * `expressMessageClasses`. The options this service does not use (TLS, 503 on closing, forced
 * closes) keep Nest's own server. Given `routePrefix`, the routes Nest adds under it are kept in a
 * `RouteIndex`, so a request tries only the routes of its first segment.
 */
export class LeanExpressAdapter extends ExpressAdapter {
  constructor(options: { routePrefix?: string } = {}) {
    super();
    if (options.routePrefix) new RouteIndex(this.getInstance<Express>(), options.routePrefix).install();
  }

  override initHttpServer(options: NestApplicationOptions): void {
    if (options?.httpsOptions || options?.return503OnClosing || options?.forceCloseConnections) {
      super.initHttpServer(options);
      return;
    }
    const app = this.getInstance<Express>();
    this.httpServer = http.createServer(expressMessageClasses(app), app);
  }
}
