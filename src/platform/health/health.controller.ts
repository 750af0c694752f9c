import { Controller, Get, HttpCode } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AppError } from '../../core/index.js';
import { Open } from '../auth/index.js';
import { DependencyProbes } from './dependency-probes.js';

@ApiTags('health')
@Controller('health')
export class HealthController {
  constructor(private readonly probes: DependencyProbes) {}

  @Get()
  @Open()
  @ApiOperation({ operationId: 'getLiveness', summary: 'Liveness: the process answers.' })
  @ApiOkResponse({ schema: { type: 'object', required: ['status'], additionalProperties: false, properties: { status: { type: 'string', enum: ['ok'] } } } })
  live() {
    return { status: 'ok' };
  }

  @Get('ready')
  @Open()
  @HttpCode(200)
  @ApiOperation({ operationId: 'getReadiness', summary: 'Readiness: the database answers, and Redis when configured; else 503 `service_unavailable` within a second.' })
  @ApiOkResponse({
    schema: {
      type: 'object',
      required: ['status', 'checks'],
      properties: { status: { type: 'string', enum: ['ok'] }, checks: { type: 'object', additionalProperties: { type: 'string', enum: ['up', 'down'] }, description: 'Each dependency probed.' } },
    },
  })
  async ready() {
    const checks = await this.probes.check();
    if (Object.values(checks).includes('down')) {
      throw new AppError('service_unavailable', 'A dependency is down.', { checks });
    }
    return { status: 'ok', checks };
  }
}
