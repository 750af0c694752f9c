import { RequestMethod, type INestApplication, type Type } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants.js';
import { controllersOf, methodsOf } from '../http/controllers.js';
import { ACCESS_KEY, MIN_ROLE_KEY, type AccessRule } from './access.decorator.js';

/** A controller route that carries no access declaration, or no minimum workspace role. */
export interface UndeclaredRoute {
  method: string;
  path: string;
  handler: string;
  missing: 'access' | 'role';
}

/**
 * Every HTTP controller route of the application that lacks `@Open`, `@Product` or `@PublicApi`
 * on its handler or its class, or, for a product or public route, `@MinRole` (platform-admin
 * routes excepted: no workspace role opens them). The global guard would refuse a route without
 * access on every request, and would let every member through one without a role; finding either
 * at boot turns it into a refusal to start.
 */
export function findUndeclaredRoutes(app: INestApplication): UndeclaredRoute[] {
  return controllersOf(app).flatMap(undeclaredRoutesOf);
}

/** Throws, naming each route, when any route lacks its access declaration. */
export function assertEveryRouteDeclared(app: INestApplication): void {
  const missing = findUndeclaredRoutes(app);
  if (missing.length === 0) return;
  const list = (what: UndeclaredRoute['missing']) => missing.filter((r) => r.missing === what).map((r) => `${r.method} ${r.path} (${r.handler})`).join(', ');
  const parts = [
    list('access') && `routes without an access declaration (@Open, @Product or @PublicApi): ${list('access')}`,
    list('role') && `routes without a minimum workspace role (@MinRole): ${list('role')}`,
  ];
  throw new Error(parts.filter(Boolean).join('; '));
}

function undeclaredRoutesOf(controller: Type): UndeclaredRoute[] {
  const base = pathsOf(Reflect.getMetadata(PATH_METADATA, controller));
  const routes: UndeclaredRoute[] = [];
  for (const { name, handler } of methodsOf(controller)) {
    const own = Reflect.getMetadata(PATH_METADATA, handler);
    if (own === undefined) continue;
    const missing = missingDeclaration(controller, handler);
    if (!missing) continue;
    const method = RequestMethod[(Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod) ?? RequestMethod.GET];
    for (const prefix of base) {
      for (const path of pathsOf(own)) {
        routes.push({ method, path: joinPath(prefix, path), handler: `${controller.name}.${name}`, missing });
      }
    }
  }
  return routes;
}

/** What a route lacks, as the guard reads it: the handler's declaration, else its controller's. */
function missingDeclaration(controller: Type, handler: object): UndeclaredRoute['missing'] | null {
  const rule = (Reflect.getMetadata(ACCESS_KEY, handler) ?? Reflect.getMetadata(ACCESS_KEY, controller)) as AccessRule | undefined;
  if (!rule) return 'access';
  if (rule.surface === 'open' || (rule.surface === 'product' && rule.roles?.includes('admin'))) return null;
  const role = Reflect.getMetadata(MIN_ROLE_KEY, handler) ?? Reflect.getMetadata(MIN_ROLE_KEY, controller);
  return role === undefined ? 'role' : null;
}

function pathsOf(value: unknown): string[] {
  if (Array.isArray(value)) return value.length > 0 ? value.map(String) : ['/'];
  return [typeof value === 'string' ? value : '/'];
}

function joinPath(a: string, b: string): string {
  return `/${[a, b].map((p) => p.replace(/^\/+|\/+$/g, '')).filter(Boolean).join('/')}`;
}
