import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../../config/index.js';
import { AppError } from '../../../core/index.js';
import { MailMessagesRepository, type KeptMail } from '../infrastructure/mail-messages.repository.js';

/** The newest this many messages are shown. */
export const MAILBOX_LIMIT = 50;

/**
 * The development mailbox: what the offline adapter kept. It exists only where mail is kept
 * rather than sent (no SMTP_URL) and never in production, where it answers 404 like any unknown route.
 */
@Injectable()
export class DevMailboxService {
  constructor(
    private readonly config: AppConfig,
    private readonly messages: MailMessagesRepository,
  ) {}

  get open(): boolean {
    return !this.config.production && this.config.notifications.smtpUrl === undefined;
  }

  async list(to: string | undefined): Promise<KeptMail[]> {
    if (!this.open) throw new AppError('not_found', 'No route GET /api/v1/dev/mailbox.');
    return this.messages.listKept(to?.trim() || null, MAILBOX_LIMIT);
  }
}
