import { Mailer, type OutgoingMail } from '../application/mailer.js';
import type { MailMessagesRepository } from './mail-messages.repository.js';

/**
 * Without SMTP_URL: the message is kept in its `mail_messages` row (text and HTML) and shown at the
 * development mailbox, so every flow that mails a link runs on a fresh machine.
 */
export class OfflineMailer extends Mailer {
  readonly kind = 'offline' as const;

  constructor(private readonly messages: MailMessagesRepository) {
    super();
  }

  async send(mail: OutgoingMail): Promise<{ providerId: string }> {
    if (!(await this.messages.keepBodies(mail.id, mail.text, mail.html))) throw new Error(`mail ${mail.id} has no row to keep it in`);
    return { providerId: `offline:${mail.id}` };
  }
}
