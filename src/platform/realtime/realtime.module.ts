import { DynamicModule, Global, Module } from '@nestjs/common';
import type { ProcessRole } from '../../app.module.js';

@Global()
@Module({})
export class RealtimeModule {
  static forRoot(_role: ProcessRole): DynamicModule {
    return { module: RealtimeModule };
  }
}
