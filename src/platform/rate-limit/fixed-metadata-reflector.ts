import { Reflector } from '@nestjs/core';

/**
 * The throttler asks, on every request and for each of its three throttlers, up to six decorator
 * keys of the handler and its class (`@Throttle`, `@SkipThrottle`, …): some 16 metadata reads a
 * request. Metadata is fixed once a class is defined, so each answer is read once per handler,
 * class and key, then remembered (as the access guard remembers its own declarations).
 */
export class FixedMetadataReflector extends Reflector {
  private readonly answers = new WeakMap<object, WeakMap<object, Map<unknown, unknown>>>();

  constructor(private readonly reflector: Reflector) {
    super();
  }

  override getAllAndOverride<TResult = unknown, TKey = unknown>(metadataKey: TKey, targets: Parameters<Reflector['getAllAndOverride']>[1]): TResult {
    const [handler, classRef] = targets;
    if (targets.length !== 2 || !handler || !classRef) return this.reflector.getAllAndOverride<TResult, TKey>(metadataKey, targets);
    let byClass = this.answers.get(handler);
    if (!byClass) this.answers.set(handler, (byClass = new WeakMap()));
    let byKey = byClass.get(classRef);
    if (!byKey) byClass.set(classRef, (byKey = new Map()));
    if (!byKey.has(metadataKey)) byKey.set(metadataKey, this.reflector.getAllAndOverride<TResult, TKey>(metadataKey, targets));
    return byKey.get(metadataKey) as TResult;
  }
}
