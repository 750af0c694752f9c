/**
 * Paths as logs may show them. Some routes carry a secret in the path (an invitation token from a
 * link, later a password-reset token), and a log line outlives the secret's purpose and reaches
 * people who must not hold it. Two rules, so a new route is covered without touching this file:
 *
 * - On a route that matched, a path parameter whose name ends in `token` or `secret` (any case:
 *   `:token`, `:idOrToken`, `:resetSecret`) is a secret; its segment is logged as `:<name>`.
 *   Naming the parameter so is how a route declares it.
 * - On a path no route matched (a mistyped link still carries its token), any segment shaped like
 *   an issued secret is logged as `[redacted]`: 32 or more URL-safe base64 characters, a prefix
 *   such as `pinv_` included. Ids (a prefix and a ULID) stay readable.
 */
const SECRET_PARAM = /(token|secret)$/i;
const SECRET_SHAPE = /^[A-Za-z0-9_-]{32,}$/;
/** A product id (`voice_` and a ULID is 32 characters): public, and what an operator greps for. */
const ID_SHAPE = /^[a-z]{1,10}_[0-9A-HJKMNP-TV-Z]{26}$/;
export const REDACTED_SEGMENT = '[redacted]';

/** What Express knows of a request once it is answered; `route` is set when a route matched it. */
export interface PathSource {
  path: string;
  route?: { path?: unknown };
  params?: Record<string, unknown>;
}

/** What a log line shows of a request's path: as the client sent it (no query), redacted. */
export function loggablePath(req: { originalUrl?: string; url?: string; route?: { path?: unknown }; params?: Record<string, unknown> }): string {
  return redactPath({ path: pathSent(req), route: req.route, params: req.params });
}

/**
 * `req.path` is relative to whatever router answered last: a request Nest's not-found handler
 * answered under the API prefix has lost the prefix there. The original URL has not.
 */
function pathSent(req: { originalUrl?: string; url?: string }): string {
  const url = req.originalUrl ?? req.url ?? '';
  const end = url.search(/[?#]/);
  return end === -1 ? url : url.slice(0, end);
}

export function redactPath(req: PathSource): string {
  const matched = typeof req.route?.path === 'string' && !isCatchAll(req.route.path);
  const secrets = matched ? secretParams(req.params ?? {}) : new Map<string, string>();
  return req.path
    .split('/')
    .map((segment) => {
      const value = decoded(segment);
      if (matched) return secrets.has(value) ? `:${secrets.get(value)}` : segment;
      return SECRET_SHAPE.test(value) && !ID_SHAPE.test(value) ? REDACTED_SEGMENT : segment;
    })
    .join('/');
}

/** Nest answers its 404s from a catch-all route (`*path`): that is no route having matched. */
function isCatchAll(routePath: string): boolean {
  return /^\/?\*|\/\*[^/]*$/.test(routePath);
}

/** Secret values to the name of the parameter that carried them. */
function secretParams(params: Record<string, unknown>): Map<string, string> {
  const secrets = new Map<string, string>();
  for (const [name, value] of Object.entries(params)) {
    if (SECRET_PARAM.test(name) && typeof value === 'string' && value !== '') secrets.set(value, name);
  }
  return secrets;
}

function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
