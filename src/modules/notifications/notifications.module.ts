import { Module } from '@nestjs/common';
import { AppConfig } from '../../config/index.js';
import { AuthModule } from '../auth/index.js';
import { DevMailboxController } from './api/dev-mailbox.controller.js';
import { DevMailboxService } from './application/dev-mailbox.service.js';
import { MailSubscriber } from './application/mail-subscriber.js';
import { Mailer } from './application/mailer.js';
import { MailMessagesRepository } from './infrastructure/mail-messages.repository.js';
import { OfflineMailer } from './infrastructure/offline-mailer.js';
import { SmtpMailer } from './infrastructure/smtp-mailer.js';

/**
 * Transactional mail (docs/mail.md): subscribes to the outbox, renders each event's template and
 * sends it through SMTP, or keeps it for the development mailbox when no SMTP server is configured.
 * Exports nothing: a context announces a fact through the outbox, never by calling this one.
 */
@Module({
  imports: [AuthModule],
  controllers: [DevMailboxController],
  providers: [
    MailMessagesRepository,
    {
      provide: Mailer,
      inject: [AppConfig, MailMessagesRepository],
      useFactory: (config: AppConfig, messages: MailMessagesRepository): Mailer =>
        config.notifications.smtpUrl ? new SmtpMailer(config.notifications.smtpUrl) : new OfflineMailer(messages),
    },
    MailSubscriber,
    DevMailboxService,
  ],
})
export class NotificationsModule {}
