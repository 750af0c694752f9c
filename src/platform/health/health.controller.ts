import { Controller, Get, HttpCode } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AppError } from '../../core/index.js';
import { Open } from '../auth/index.js';
import { RedisConnections } from '../redis/redis.module.js';

@ApiTags('health')
@Controller('health')
export class HealthController {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly redis: RedisConnections,
  ) {}

  @Get()
  @Open()
  @ApiOperation({ summary: 'Liveness: the process answers.' })
  live() {
    return { status: 'ok' };
  }

  @Get('ready')
  @Open()
  @HttpCode(200)
  @ApiOperation({ summary: 'Readiness: the database answers, and Redis when configured.' })
  async ready() {
    const checks: Record<string, 'up' | 'down'> = {};
    checks.database = await this.db.query('SELECT 1').then(() => 'up' as const, () => 'down' as const);
    if (this.redis.client) {
      checks.redis = await this.redis.client.ping().then(() => 'up' as const, () => 'down' as const);
    }
    if (Object.values(checks).includes('down')) {
      throw new AppError('internal_error', 'A dependency is down.', { checks });
    }
    return { status: 'ok', checks };
  }
}
