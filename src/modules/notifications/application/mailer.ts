/** A message as the mail port sends it. `id`: our `mail_` id (the SMTP Message-ID is built from it, so a resend keeps it). */
export interface OutgoingMail {
  id: string;
  to: string;
  from: { name: string; address: string };
  replyTo: string | null;
  subject: string;
  text: string;
  html: string;
  headers: Record<string, string>;
}

/**
 * The mail port: SMTP (SMTP_URL) or the offline adapter, which keeps the message for the
 * development mailbox. `send` answers the provider's id of the message, or throws (to be retried).
 */
export abstract class Mailer {
  abstract readonly kind: 'smtp' | 'offline';
  abstract send(mail: OutgoingMail): Promise<{ providerId: string }>;
}
