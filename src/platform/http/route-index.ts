import express, { type Express, type NextFunction, type Request, type Response, type Router } from 'express';

/** The route methods the index takes; any other keeps the application's own list. */
const INDEXED_METHODS = ['get', 'post', 'put', 'patch', 'delete', 'head', 'options', 'all'] as const;
type IndexedMethod = (typeof INDEXED_METHODS)[number];

/** A path segment with nothing for path-to-regexp to read: no parameter, wildcard, group or escape. */
const LITERAL_SEGMENT = /^[A-Za-z0-9_.~-]+$/;

/**
 * The routes under one prefix (`/api/v1`), kept in one router per first segment after it
 * (`characters`, `l`, `health`) and reached through one lookup.
 *
 * Express tries its routes one after another until one matches: a request for a route registered
 * late (`/l/{shortcode}`, about the 190th of 236) first ran the path matcher of every route before
 * it, some 7 µs a request that `/health`, the sixth, did not pay. Here a request under the prefix
 * looks up its first segment and tries only that segment's routes, in the order they were added.
 *
 * What a client sees does not change. Routes whose first segment is not literal (`/:id`, `*path`)
 * are not taken and stay in the application's list after the index, which is mounted where the
 * first indexed route was added; a path whose segment has no router, or whose router has no route
 * for it, goes on down that list (to the not-found answer). Inside an indexed route, `req.baseUrl`
 * is the prefix and `req.route.path` the rest, as for any route of a mounted router;
 * `req.originalUrl` is the path as sent.
 */
export class RouteIndex {
  private readonly prefix: string;
  private readonly routers = new Map<string, Router>();
  /** Express's routing settings, read when the index is mounted (as Express's own router reads them once). */
  private options?: { caseSensitive: boolean; strict: boolean };

  constructor(
    private readonly app: Express,
    prefix: string,
  ) {
    this.prefix = `/${prefix.replace(/^\/+|\/+$/g, '')}`;
  }

  /**
   * Takes over the application's route methods (`app.get(path, ...handlers)` and the others of
   * INDEXED_METHODS), through which Nest adds its routes: a route the index takes goes to its
   * segment's router, any other to the application as before. `app.get(setting)`, a settings read,
   * is left alone.
   */
  install(): void {
    for (const method of INDEXED_METHODS) {
      const original = this.app[method].bind(this.app) as (...args: unknown[]) => unknown;
      const routed = (path: unknown, ...handlers: unknown[]): unknown => (handlers.length > 0 && this.add(method, path, handlers) ? this.app : original(path, ...handlers));
      (this.app as unknown as Record<IndexedMethod, typeof routed>)[method] = routed;
    }
  }

  /**
   * Adds the route to its segment's router when `path` is a string under the prefix whose first
   * segment after it is literal; answers false, adding nothing, otherwise.
   */
  add(method: IndexedMethod, path: unknown, handlers: unknown[]): boolean {
    if (typeof path !== 'string' || !path.startsWith(`${this.prefix}/`)) return false;
    const rest = path.slice(this.prefix.length);
    const end = rest.indexOf('/', 1);
    const segment = end === -1 ? rest.slice(1) : rest.slice(1, end);
    if (!LITERAL_SEGMENT.test(segment)) return false;
    const options = this.mount();
    const key = this.keyOf(segment);
    let router = this.routers.get(key);
    if (!router) {
      router = express.Router(options);
      this.routers.set(key, router);
    }
    (router[method] as (path: string, ...handlers: unknown[]) => Router)(rest, ...handlers);
    return true;
  }

  private mount(): { caseSensitive: boolean; strict: boolean } {
    if (!this.options) {
      this.options = { caseSensitive: Boolean(this.app.get('case sensitive routing')), strict: Boolean(this.app.get('strict routing')) };
      this.app.use(this.prefix, this.dispatch);
    }
    return this.options;
  }

  /** Mounted at the prefix: `req.url` is what follows it (`/l/abc?x=1`). */
  private readonly dispatch = (req: Request, res: Response, next: NextFunction): void => {
    const url = req.url;
    let end = 1;
    while (end < url.length) {
      const c = url.charCodeAt(end);
      if (c === 0x2f || c === 0x3f || c === 0x23) break; // '/', '?', '#'
      end++;
    }
    const router = this.routers.get(this.keyOf(url.slice(1, end)));
    if (router) router(req, res, next);
    else next();
  };

  private keyOf(segment: string): string {
    return this.options?.caseSensitive ? segment : segment.toLowerCase();
  }
}
