import { Controller, Get, HttpCode } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { AppError } from '../../core/index.js';
import { Open } from '../auth/index.js';
import { DependencyProbes } from './dependency-probes.js';

@ApiTags('health')
@Controller('health')
export class HealthController {
  constructor(private readonly probes: DependencyProbes) {}

  @Get()
  @Open()
  @ApiOperation({ summary: 'Liveness: the process answers.' })
  live() {
    return { status: 'ok' };
  }

  @Get('ready')
  @Open()
  @HttpCode(200)
  @ApiOperation({ summary: 'Readiness: the database answers, and Redis when configured; else 503 `service_unavailable` within a second.' })
  async ready() {
    const checks = await this.probes.check();
    if (Object.values(checks).includes('down')) {
      throw new AppError('service_unavailable', 'A dependency is down.', { checks });
    }
    return { status: 'ok', checks };
  }
}
