import http from 'node:http';
import type { NestApplicationOptions } from '@nestjs/common';
import { ExpressAdapter } from '@nestjs/platform-express';
import type { Express } from 'express';
import { RouteIndex, type IndexedMethod } from './route-index.js';

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
  private readonly routes?: RouteIndex;

  constructor(options: { routePrefix?: string } = {}) {
    super();
    if (options.routePrefix) this.routes = new RouteIndex(this.getInstance<Express>(), options.routePrefix);
  }

  override get(...args: unknown[]): unknown {
    return this.route('get', args) ?? super.get(...(args as Parameters<ExpressAdapter['get']>));
  }

  override post(...args: unknown[]): unknown {
    return this.route('post', args) ?? super.post(...(args as Parameters<ExpressAdapter['post']>));
  }

  override put(...args: unknown[]): unknown {
    return this.route('put', args) ?? super.put(...(args as Parameters<ExpressAdapter['put']>));
  }

  override patch(...args: unknown[]): unknown {
    return this.route('patch', args) ?? super.patch(...(args as Parameters<ExpressAdapter['patch']>));
  }

  override delete(...args: unknown[]): unknown {
    return this.route('delete', args) ?? super.delete(...(args as Parameters<ExpressAdapter['delete']>));
  }

  override head(...args: unknown[]): unknown {
    return this.route('head', args) ?? super.head(...(args as Parameters<ExpressAdapter['head']>));
  }

  override options(...args: unknown[]): unknown {
    return this.route('options', args) ?? super.options(...(args as Parameters<ExpressAdapter['options']>));
  }

  override all(...args: unknown[]): unknown {
    return this.route('all', args) ?? super.all(...(args as Parameters<ExpressAdapter['all']>));
  }

  /** The application when the index took the route (as Express's own methods answer); undefined when it did not. */
  private route(method: IndexedMethod, [path, ...handlers]: unknown[]): Express | undefined {
    return this.routes?.add(method, path, handlers) ? this.getInstance<Express>() : undefined;
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
