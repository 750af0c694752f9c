import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Controller, Get, Module, Post, type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { MinRole, Open, Product, PublicApi } from './access.decorator.js';
import { assertEveryRouteDeclared, findUndeclaredRoutes } from './route-audit.js';

@Controller('things')
class ThingsController {
  @Get()
  @Product()
  @MinRole('viewer')
  list() {
    return [];
  }

  /** Declared, but with no minimum workspace role: refused too. */
  @Post()
  @Product()
  create() {
    return {};
  }

  /** A platform-admin route needs no workspace role. */
  @Post('reindex')
  @Product({ roles: ['admin'] })
  reindex() {
    return {};
  }

  @Post(':id/poke')
  poke() {
    return {};
  }

  /** Not a route: must be ignored. */
  helper() {
    return 1;
  }
}

@Controller('public')
@PublicApi('credits:read')
@MinRole('viewer')
class DeclaredOnClassController {
  @Get('credits')
  credits() {
    return {};
  }
}

@Controller()
class RootController {
  @Get(['a', 'b'])
  both() {
    return {};
  }

  @Get('health')
  @Open()
  health() {
    return {};
  }
}

@Module({ controllers: [DeclaredOnClassController] })
class NestedModule {}

@Module({ imports: [NestedModule], controllers: [ThingsController, RootController] })
class AppUnderTest {}

describe('findUndeclaredRoutes', () => {
  let app: INestApplication;

  beforeAll(async () => {
    app = await NestFactory.create(AppUnderTest, { logger: false });
    await app.init();
  });
  afterAll(async () => {
    await app?.close();
  });

  it('lists every route without a declaration on its handler or class, in any module', () => {
    const found = findUndeclaredRoutes(app);
    expect(found).toEqual(
      expect.arrayContaining([
        { method: 'POST', path: '/things/:id/poke', handler: 'ThingsController.poke', missing: 'access' },
        { method: 'GET', path: '/a', handler: 'RootController.both', missing: 'access' },
        { method: 'GET', path: '/b', handler: 'RootController.both', missing: 'access' },
        { method: 'POST', path: '/things', handler: 'ThingsController.create', missing: 'role' },
      ]),
    );
    expect(found).toHaveLength(4);
  });

  it('makes assertEveryRouteDeclared throw naming each route and what it lacks', () => {
    expect(() => assertEveryRouteDeclared(app)).toThrow(/access declaration.*POST \/things\/:id\/poke \(ThingsController\.poke\)/);
    expect(() => assertEveryRouteDeclared(app)).toThrow(/minimum workspace role \(@MinRole\): POST \/things \(ThingsController\.create\)/);
  });

  it('answers nothing for an application whose routes are all declared', async () => {
    const clean = await NestFactory.create(NestedModule, { logger: false });
    await clean.init();
    try {
      expect(findUndeclaredRoutes(clean)).toEqual([]);
      expect(() => assertEveryRouteDeclared(clean)).not.toThrow();
    } finally {
      await clean.close();
    }
  });
});
