import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { AppConfig } from '../../../config/index.js';
import { AdminAccounts } from './admin-accounts.js';

/** Ensures the configured admin account exists before the process starts serving. */
@Injectable()
export class AdminBootstrap implements OnApplicationBootstrap {
  private readonly logger = new Logger('Auth');

  constructor(
    private readonly config: AppConfig,
    private readonly admins: AdminAccounts,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const { adminEmail, adminPassword } = this.config;
    if (!adminEmail || !adminPassword) return;
    const { outcome, weakPassword } = await this.admins.ensureAdmin(adminEmail, adminPassword, { refuseGuessable: this.config.production });
    if (outcome !== 'unchanged') this.logger.log({ msg: `admin account ${outcome}`, email: adminEmail });
    if (weakPassword) this.logger.warn({ msg: 'ADMIN_PASSWORD is guessable; production refuses it', reason: weakPassword });
  }
}
