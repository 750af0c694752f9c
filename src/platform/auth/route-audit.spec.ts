import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Controller, Get, Module, Post, type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Open, Product, PublicApi } from './access.decorator.js';
import { assertEveryRouteDeclared, findUndeclaredRoutes } from './route-audit.js';

@Controller('things')
class ThingsController {
  @Get()
  @Product()
  list() {
    return [];
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
        { method: 'POST', path: '/things/:id/poke', handler: 'ThingsController.poke' },
        { method: 'GET', path: '/a', handler: 'RootController.both' },
        { method: 'GET', path: '/b', handler: 'RootController.both' },
      ]),
    );
    expect(found).toHaveLength(3);
  });

  it('makes assertEveryRouteDeclared throw naming each route', () => {
    expect(() => assertEveryRouteDeclared(app)).toThrow(/POST \/things\/:id\/poke \(ThingsController\.poke\)/);
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
