import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength } from 'class-validator';
import { linksIn } from '../../domain/mail-templates.js';
import type { KeptMail } from '../../infrastructure/mail-messages.repository.js';

export class MailboxQuery {
  @ApiPropertyOptional({ description: 'Only messages to this address (any case). Without it, the newest messages to anyone.', example: 'ada@example.com' })
  @IsOptional()
  @IsString()
  @MaxLength(320)
  to?: string;
}

export class MailboxMessageView {
  @ApiProperty({ example: 'mail_01JEXAMPLE' }) id!: string;
  @ApiProperty() to!: string;
  @ApiProperty({ description: 'The event type the message was rendered from.', example: 'account.password_reset_requested' }) template!: string;
  @ApiProperty() subject!: string;
  @ApiProperty() text!: string;
  @ApiProperty() html!: string;
  @ApiProperty({ type: [String], description: 'The absolute URLs in the message, its action first.' }) links!: string[];
  @ApiProperty({ format: 'date-time' }) created_at!: string;
}

export class MailboxView {
  @ApiProperty({ type: [MailboxMessageView] }) data!: MailboxMessageView[];
}

export function mailboxMessageBody(m: KeptMail): MailboxMessageView {
  return { id: m.id, to: m.to, template: m.template, subject: m.subject, text: m.text, html: m.html, links: linksIn(m.text), created_at: m.createdAt.toISOString() };
}
