import { Global, Module } from '@nestjs/common';
import { ProcessLifecycle } from './process-lifecycle.js';

/** The process's stop, for the parts that must act when it begins (see ProcessLifecycle). */
@Global()
@Module({ providers: [ProcessLifecycle], exports: [ProcessLifecycle] })
export class LifecycleModule {}
