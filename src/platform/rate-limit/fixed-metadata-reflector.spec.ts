import { describe, expect, it } from '@jest/globals';
import { SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { FixedMetadataReflector } from './fixed-metadata-reflector.js';

const LIMIT = 'limit-key';
const SKIP = 'skip-key';

@SetMetadata(LIMIT, 10)
class Routes {
  @SetMetadata(LIMIT, 3)
  tight(): void {}

  @SetMetadata(SKIP, true)
  open(): void {}

  plain(): void {}
}

/** A subclass shares its parent's handlers but has metadata of its own. */
@SetMetadata(LIMIT, 99)
class MoreRoutes extends Routes {}

/** Counts the reads that reach Nest's Reflector. */
class CountingReflector extends Reflector {
  reads = 0;
  override getAllAndOverride<TResult = unknown, TKey = unknown>(key: TKey, targets: Parameters<Reflector['getAllAndOverride']>[1]): TResult {
    this.reads += 1;
    return super.getAllAndOverride<TResult, TKey>(key, targets);
  }
}

describe('FixedMetadataReflector', () => {
  it("answers as Nest's Reflector does: the handler's value first, then the class's, undefined when neither has one", () => {
    const fixed = new FixedMetadataReflector(new Reflector());
    const at = (handler: () => void, cls: object = Routes) => [handler, cls as () => void];
    expect(fixed.getAllAndOverride(LIMIT, at(Routes.prototype.tight))).toBe(3);
    expect(fixed.getAllAndOverride(LIMIT, at(Routes.prototype.plain))).toBe(10);
    expect(fixed.getAllAndOverride(SKIP, at(Routes.prototype.open))).toBe(true);
    expect(fixed.getAllAndOverride(SKIP, at(Routes.prototype.plain))).toBeUndefined();
    expect(fixed.getAllAndOverride(LIMIT, at(Routes.prototype.plain, MoreRoutes))).toBe(99);
    expect(fixed.getAllAndOverride(LIMIT, at(Routes.prototype.plain))).toBe(10);
  });

  it('reads each handler, class and key once, an undefined answer included', () => {
    const counting = new CountingReflector();
    const fixed = new FixedMetadataReflector(counting);
    for (let i = 0; i < 5; i++) {
      fixed.getAllAndOverride(LIMIT, [Routes.prototype.tight, Routes]);
      fixed.getAllAndOverride(SKIP, [Routes.prototype.tight, Routes]);
      fixed.getAllAndOverride(SKIP, [Routes.prototype.tight, MoreRoutes]);
    }
    expect(counting.reads).toBe(3);
  });

  it('passes any other shape of targets straight through, unremembered', () => {
    const counting = new CountingReflector();
    const fixed = new FixedMetadataReflector(counting);
    expect(fixed.getAllAndOverride(LIMIT, [Routes])).toBe(10);
    expect(fixed.getAllAndOverride(LIMIT, [Routes])).toBe(10);
    expect(counting.reads).toBe(2);
  });
});
