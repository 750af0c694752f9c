import { Logger, OnApplicationShutdown } from '@nestjs/common';
import nodemailer, { type Transporter } from 'nodemailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport/index.js';
import { Mailer, type OutgoingMail } from '../application/mailer.js';

/** How long a connection, the server's greeting and an idle socket may take: a stuck server fails the attempt, the outbox retries. */
const CONNECTION_TIMEOUT_MS = 10_000;
const GREETING_TIMEOUT_MS = 10_000;
const SOCKET_TIMEOUT_MS = 20_000;

/**
 * Connection options of an SMTP_URL: `smtps://` is TLS from the start (port 465 unless given),
 * `smtp://` plain with STARTTLS when offered (port 587 unless given); user and password from the URL,
 * percent-decoded. `?tls=insecure` accepts a self-signed certificate (a test or an internal relay).
 */
export function smtpOptionsOf(smtpUrl: string): SMTPTransport.Options {
  const url = new URL(smtpUrl);
  const secure = url.protocol === 'smtps:';
  const user = decodeURIComponent(url.username);
  return {
    host: url.hostname.replace(/^\[|\]$/g, ''),
    port: url.port ? Number(url.port) : secure ? 465 : 587,
    secure,
    ...(user ? { auth: { user, pass: decodeURIComponent(url.password) } } : {}),
    ...(url.searchParams.get('tls') === 'insecure' ? { tls: { rejectUnauthorized: false } } : {}),
  };
}

/** The domain of the sender's address, for Message-IDs. */
function domainOf(address: string): string {
  return address.slice(address.lastIndexOf('@') + 1) || 'localhost';
}

/**
 * Sends through an SMTP server (nodemailer): `smtp://` upgrades with STARTTLS when the server
 * offers it, `smtps://` speaks TLS from the start. The Message-ID is ours (`<mail_…@domain>`), so a
 * resend after an unrecorded success carries the same id and receivers can drop the copy.
 */
export class SmtpMailer extends Mailer implements OnApplicationShutdown {
  readonly kind = 'smtp' as const;
  private readonly logger = new Logger('Mail');
  private readonly transport: Transporter;

  constructor(smtpUrl: string) {
    super();
    this.transport = nodemailer.createTransport({
      ...smtpOptionsOf(smtpUrl),
      connectionTimeout: CONNECTION_TIMEOUT_MS,
      greetingTimeout: GREETING_TIMEOUT_MS,
      socketTimeout: SOCKET_TIMEOUT_MS,
      disableFileAccess: true,
      disableUrlAccess: true,
    });
  }

  async send(mail: OutgoingMail): Promise<{ providerId: string }> {
    const messageId = `<${mail.id}@${domainOf(mail.from.address)}>`;
    const info = await this.transport.sendMail({
      messageId,
      from: mail.from,
      to: mail.to,
      ...(mail.replyTo ? { replyTo: mail.replyTo } : {}),
      subject: mail.subject,
      text: mail.text,
      html: mail.html,
      headers: mail.headers,
    });
    if ((info.rejected ?? []).length > 0) throw new Error(`the SMTP server refused the recipient: ${String(info.response ?? '')}`.slice(0, 500));
    this.logger.debug({ msg: 'mail sent', mail_id: mail.id, response: info.response });
    return { providerId: info.messageId || messageId };
  }

  onApplicationShutdown(): void {
    this.transport.close();
  }
}
