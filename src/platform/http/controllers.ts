import type { INestApplication, Type } from '@nestjs/common';
import { MetadataScanner, ModulesContainer } from '@nestjs/core';

/** Every controller class of the application, once each: for the checks and documentation done at boot. */
export function controllersOf(app: INestApplication): Type[] {
  const seen = new Set<Type>();
  for (const module of app.get(ModulesContainer, { strict: false }).values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as Type | null;
      if (controller) seen.add(controller);
    }
  }
  return [...seen];
}

/** A controller's methods, by name, as the functions its decorators put metadata on. */
export function methodsOf(controller: Type): Array<{ name: string; handler: object }> {
  const methods: Array<{ name: string; handler: object }> = [];
  for (const name of new MetadataScanner().getAllMethodNames(controller.prototype)) {
    const handler: unknown = controller.prototype[name];
    if (typeof handler === 'function') methods.push({ name, handler });
  }
  return methods;
}
