import { RequestMethod, type INestApplication, type Type } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants.js';
import { controllersOf, methodsOf } from '../http/controllers.js';
import { ACCESS_KEY } from './access.decorator.js';

/** A controller route that carries no access declaration. */
export interface UndeclaredRoute {
  method: string;
  path: string;
  handler: string;
}

/**
 * Every HTTP controller route of the application that lacks `@Open`, `@Product` or `@PublicApi`
 * on its handler or its class. The global guard would refuse such a route on every request;
 * finding it at boot turns a silent 403 into a refusal to start.
 */
export function findUndeclaredRoutes(app: INestApplication): UndeclaredRoute[] {
  return controllersOf(app).flatMap(undeclaredRoutesOf);
}

/** Throws, naming each route, when any route lacks its access declaration. */
export function assertEveryRouteDeclared(app: INestApplication): void {
  const missing = findUndeclaredRoutes(app);
  if (missing.length === 0) return;
  const list = missing.map((r) => `${r.method} ${r.path} (${r.handler})`).join(', ');
  throw new Error(`routes without an access declaration (@Open, @Product or @PublicApi): ${list}`);
}

function undeclaredRoutesOf(controller: Type): UndeclaredRoute[] {
  const classDeclared = Reflect.getMetadata(ACCESS_KEY, controller) !== undefined;
  const base = pathsOf(Reflect.getMetadata(PATH_METADATA, controller));
  const routes: UndeclaredRoute[] = [];
  for (const { name, handler } of methodsOf(controller)) {
    const own = Reflect.getMetadata(PATH_METADATA, handler);
    if (own === undefined) continue;
    if (classDeclared || Reflect.getMetadata(ACCESS_KEY, handler) !== undefined) continue;
    const method = RequestMethod[(Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod) ?? RequestMethod.GET];
    for (const prefix of base) {
      for (const path of pathsOf(own)) {
        routes.push({ method, path: joinPath(prefix, path), handler: `${controller.name}.${name}` });
      }
    }
  }
  return routes;
}

function pathsOf(value: unknown): string[] {
  if (Array.isArray(value)) return value.length > 0 ? value.map(String) : ['/'];
  return [typeof value === 'string' ? value : '/'];
}

function joinPath(a: string, b: string): string {
  return `/${[a, b].map((p) => p.replace(/^\/+|\/+$/g, '')).filter(Boolean).join('/')}`;
}
