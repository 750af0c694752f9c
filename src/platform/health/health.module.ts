import { Module } from '@nestjs/common';
import { DependencyProbes } from './dependency-probes.js';
import { HealthController } from './health.controller.js';

@Module({ controllers: [HealthController], providers: [DependencyProbes] })
export class HealthModule {}
