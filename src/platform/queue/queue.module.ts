import { DynamicModule, Global, Module } from '@nestjs/common';
import type { ProcessRole } from '../../app.module.js';

@Global()
@Module({})
export class QueueModule {
  static forRoot(_role: ProcessRole): DynamicModule {
    return { module: QueueModule };
  }
}
