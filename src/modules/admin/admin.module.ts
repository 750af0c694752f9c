import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/index.js';
import { BillingModule } from '../billing/index.js';
import { AdminWorkspacesController } from './api/admin-workspaces.controller.js';
import { AdminWorkspacesService } from './application/admin-workspaces.service.js';

/** Operator routes over every workspace; admin role only. */
@Module({
  imports: [AuthModule, BillingModule],
  controllers: [AdminWorkspacesController],
  providers: [AdminWorkspacesService],
})
export class AdminModule {}
