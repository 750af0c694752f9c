/**
 * Transactional mail settings, read by the configuration (src/config/config.ts composes them).
 * `smtpUrl`: `smtp://user:pass@host:587` (STARTTLS when offered) or `smtps://…:465` (TLS from the
 * start); unset, mail is kept in the database and shown at the development mailbox instead.
 * `mailFrom`: the sender, `Name <address>` or a bare address.
 */
export interface NotificationsSettings {
  readonly smtpUrl?: string;
  readonly mailFrom: string;
}

export const DEFAULT_MAIL_FROM = 'Persona Studio <no-reply@localhost>';

const ADDRESS = /^[^\s@<>",;]+@[^\s@<>",;]+$/;
/** `Display Name <local@domain>` (the name may be quoted) or a bare address. */
const NAMED_ADDRESS = /^(?:"[^"\r\n]{1,100}"|[^<>"\r\n]{1,100})\s*<([^\s@<>",;]+@[^\s@<>",;]+)>$/;

function value(env: Record<string, string | undefined>, name: string): string | undefined {
  const v = env[name]?.trim();
  return v === undefined || v === '' ? undefined : v;
}

/** Throws an Error whose message is the one line start-up prints for a bad setting. */
export function parseNotificationsSettings(env: Record<string, string | undefined>): NotificationsSettings {
  const smtpUrl = value(env, 'SMTP_URL');
  if (smtpUrl !== undefined) {
    let parsed: URL;
    try {
      parsed = new URL(smtpUrl);
    } catch {
      throw new Error('SMTP_URL must be a URL such as smtp://user:password@mail.example.com:587');
    }
    if (parsed.protocol !== 'smtp:' && parsed.protocol !== 'smtps:') {
      throw new Error(`SMTP_URL must use smtp: or smtps:, got "${parsed.protocol}"`);
    }
    if (!parsed.hostname) throw new Error('SMTP_URL must name a host');
  }
  const mailFrom = value(env, 'MAIL_FROM') ?? DEFAULT_MAIL_FROM;
  if (!ADDRESS.test(mailFrom) && !NAMED_ADDRESS.test(mailFrom)) {
    throw new Error(`MAIL_FROM must be an address or "Name <address>", got "${mailFrom}"`);
  }
  return { smtpUrl, mailFrom };
}
