import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { AppConfig } from '../../../config/index.js';
import type { OutboxEvent } from '../../../core/index.js';
import { isForeignKeyViolation } from '../../../platform/database/index.js';
import { OutboxSubscribers, PermanentDeliveryFailure, type DeliveryAttempt } from '../../../platform/outbox/index.js';
import { BrandingService } from '../../organisations/index.js';
import { AccountsFacade } from '../../auth/index.js';
import { MAIL_EVENT_TYPES, PRODUCT_NAME, renderMail, TemplateProblem, type MailLook, type RenderedMail } from '../domain/mail-templates.js';
import { parseSender } from '../domain/sender.js';
import { MailMessagesRepository } from '../infrastructure/mail-messages.repository.js';
import { Mailer } from './mailer.js';

/** The header every message carries: the event type it was rendered from (tests and mail filters read it). */
export const TEMPLATE_HEADER = 'X-Persona-Template';

/**
 * Turns outbox events into mail: renders the event's template (with the workspace's branding when
 * it has one), records the message (one row per event and recipient), sends it through the mail
 * port and records the outcome. A failed send throws, so the outbox retries it with back-off; a
 * message already sent is not sent again when its event comes back.
 */
@Injectable()
export class MailSubscriber implements OnModuleInit {
  private readonly logger = new Logger('Mail');

  constructor(
    private readonly subscribers: OutboxSubscribers,
    private readonly config: AppConfig,
    private readonly branding: BrandingService,
    private readonly messages: MailMessagesRepository,
    private readonly mailer: Mailer,
    private readonly accounts: AccountsFacade,
  ) {}

  onModuleInit(): void {
    this.subscribers.register({ name: 'mail', types: MAIL_EVENT_TYPES, handle: (event, secret, attempt) => this.handle(event, secret, attempt) });
    if (this.mailer.kind === 'offline' && this.config.production) {
      this.logger.warn({ msg: 'SMTP_URL is not set: mail is kept in the database and not sent' });
    }
  }

  async handle(event: OutboxEvent, secret: string | undefined, attempt: DeliveryAttempt): Promise<void> {
    const look = event.workspaceId ? await this.lookOf(event.workspaceId) : null;
    let rendered;
    try {
      rendered = renderMail(event.type, event.payload, { appUrl: this.config.appUrl, secret, branding: look });
    } catch (err) {
      if (err instanceof TemplateProblem) throw new PermanentDeliveryFailure(err.message);
      throw err;
    }
    const userId = 'userId' in event.payload ? event.payload.userId : null;
    const recipients = rendered.to !== null ? [rendered.to] : await this.ownersOf(event.workspaceId);
    // One message per recipient; a retry sends only those not sent yet.
    for (const to of recipients) await this.deliver(event, { ...rendered, to }, userId, look, attempt);
  }

  private async deliver(event: OutboxEvent, rendered: RenderedMail & { to: string }, userId: string | null, look: MailLook | null, attempt: DeliveryAttempt): Promise<void> {
    let record;
    try {
      record = await this.messages.begin({ eventId: event.id, workspaceId: event.workspaceId, userId, to: rendered.to, template: event.type, subject: rendered.subject });
    } catch (err) {
      // The user or workspace is gone (deleted since): there is nobody to write to on their behalf.
      if (isForeignKeyViolation(err)) throw new PermanentDeliveryFailure('the message\'s user or workspace no longer exists');
      throw err;
    }
    if (record.status === 'sent') return;
    const sender = parseSender(this.config.notifications.mailFrom, PRODUCT_NAME);
    try {
      const { providerId } = await this.mailer.send({
        id: record.id,
        to: rendered.to,
        from: look?.displayName ? { name: look.displayName, address: sender.address } : sender,
        replyTo: look?.supportEmail ?? null,
        subject: rendered.subject,
        text: rendered.text,
        html: rendered.html,
        headers: { [TEMPLATE_HEADER]: event.type },
      });
      await this.messages.markSent(record.id, providerId);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      await this.messages.markFailed(record.id, message, attempt.last).catch(() => undefined);
      throw err;
    }
  }

  /** The addresses of a workspace's owners, for a fact about the workspace; none is a permanent failure. */
  private async ownersOf(workspaceId: string | null): Promise<string[]> {
    const owners = workspaceId ? await this.accounts.ownerEmails(workspaceId) : [];
    if (owners.length === 0) throw new PermanentDeliveryFailure('the workspace has no owner to write to');
    return owners;
  }

  private async lookOf(workspaceId: string): Promise<MailLook | null> {
    const b = await this.branding.forMail(workspaceId);
    return b ? { displayName: b.displayName, primaryColor: b.primaryColor, logoUrl: b.logoUrl, supportEmail: b.supportEmail } : null;
  }
}
