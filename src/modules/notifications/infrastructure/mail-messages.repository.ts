import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { newId } from '../../../core/index.js';
import { changedRows } from '../../../platform/database/index.js';

export type MailStatus = 'queued' | 'sent' | 'failed';

/** The row of one message, as an attempt to send it sees it. */
export interface MailRecord {
  id: string;
  status: MailStatus;
  attempts: number;
}

/** A message the offline adapter kept, as the development mailbox shows it. */
export interface KeptMail {
  id: string;
  to: string;
  template: string;
  subject: string;
  text: string;
  html: string;
  createdAt: Date;
}

export interface NewMail {
  eventId: string;
  workspaceId: string | null;
  userId: string | null;
  to: string;
  template: string;
  subject: string;
}

/** `mail_messages`: one row per (event, recipient), whatever the adapter. */
@Injectable()
export class MailMessagesRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /**
   * The message's row, created at its first attempt; every attempt not yet sent counts itself.
   * A row already sent is answered as it is, so the caller sends nothing twice.
   */
  async begin(mail: NewMail): Promise<MailRecord> {
    const rows: MailRecord[] = await this.ds.query(
      `INSERT INTO mail_messages (id, event_id, workspace_id, user_id, to_address, template, subject, attempts)
       VALUES ($1, $2, $3, $4, $5, $6, $7, 1)
       ON CONFLICT (event_id, to_address) DO UPDATE
         SET attempts = CASE WHEN mail_messages.status = 'sent' THEN mail_messages.attempts ELSE mail_messages.attempts + 1 END,
             subject = EXCLUDED.subject
       RETURNING id, status, attempts`,
      [newId('mail'), mail.eventId, mail.workspaceId, mail.userId, mail.to, mail.template, mail.subject],
    );
    return rows[0];
  }

  async markSent(id: string, providerId: string): Promise<void> {
    await this.ds.query(`UPDATE mail_messages SET status = 'sent', provider_id = $2, sent_at = now(), last_error = NULL WHERE id = $1`, [id, providerId]);
  }

  /** An attempt failed; `final`: the outbox gives up after it, so the message is failed for good. */
  async markFailed(id: string, error: string, final: boolean): Promise<void> {
    await this.ds.query(`UPDATE mail_messages SET last_error = $2, status = CASE WHEN $3 THEN 'failed' ELSE status END WHERE id = $1 AND status <> 'sent'`, [
      id,
      error.slice(0, 1000),
      final,
    ]);
  }

  /** The offline adapter's copy of the bodies. */
  async keepBodies(id: string, text: string, html: string): Promise<boolean> {
    return (await changedRows(this.ds.manager, `UPDATE mail_messages SET text_body = $2, html_body = $3 WHERE id = $1 RETURNING id`, [id, text, html])).length === 1;
  }

  /** Kept messages, newest first, to one address (any case) or to anyone. */
  async listKept(to: string | null, limit: number): Promise<KeptMail[]> {
    const rows: Array<{ id: string; to_address: string; template: string; subject: string; text_body: string; html_body: string; created_at: Date }> = await this.ds.query(
      `SELECT id, to_address, template, subject, text_body, html_body, created_at FROM mail_messages
        WHERE text_body IS NOT NULL AND ($1::text IS NULL OR lower(to_address) = lower($1))
        ORDER BY created_at DESC, id DESC LIMIT $2`,
      [to, limit],
    );
    return rows.map((r) => ({ id: r.id, to: r.to_address, template: r.template, subject: r.subject, text: r.text_body, html: r.html_body, createdAt: r.created_at }));
  }
}
