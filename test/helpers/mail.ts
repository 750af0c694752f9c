import { simpleParser, type AddressObject } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { api } from './api.js';
import type { TestServer } from './server.js';
import { waitFor } from './server.js';

/** A message the capture server received, parsed. `template`: its `X-Persona-Template` header. */
export interface CapturedMail {
  to: string[];
  from: string;
  replyTo: string | null;
  subject: string;
  text: string;
  html: string;
  links: string[];
  template: string | null;
  messageId: string | null;
  headers: Map<string, unknown>;
  receivedAt: Date;
}

export interface SmtpCapture {
  /** `smtp://127.0.0.1:<port>`, for SMTP_URL. */
  url: string;
  port: number;
  /** Every message received, oldest first. */
  messages: CapturedMail[];
  /** Answers the first message (oldest) to `to` (any case) of `template`; waits for it. */
  waitForMail(to: string, template: string, timeoutMs?: number): Promise<CapturedMail>;
  /** The messages to `to` (any case), of `template` when given. */
  mailTo(to: string, template?: string): CapturedMail[];
  /** While true, every connection is refused with 421 (a server that is down for the client). */
  refusing: boolean;
  /** Connections refused while `refusing`. */
  refused: number;
  stop(): Promise<void>;
}

/** The absolute http(s) URLs of a text, in order (the service puts a message's action link first). */
export function linksOf(text: string): string[] {
  return [...text.matchAll(/https?:\/\/[^\s<>"']+/g)].map((m) => m[0].replace(/[.,;:!?)\]]+$/, ''));
}

function addresses(a: AddressObject | AddressObject[] | undefined): string[] {
  const list = a === undefined ? [] : Array.isArray(a) ? a : [a];
  return list.flatMap((o) => o.value.map((v) => (v.address ?? '').toLowerCase())).filter(Boolean);
}

/** A local SMTP server (no auth, no TLS) that keeps and parses everything it receives. */
export async function startSmtpCapture(): Promise<SmtpCapture> {
  const messages: CapturedMail[] = [];
  const capture = { refusing: false, refused: 0 };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onConnect(_session, callback) {
      if (!capture.refusing) return callback();
      capture.refused += 1;
      const err = Object.assign(new Error('Service not available (test capture refusing)'), { responseCode: 421 });
      callback(err);
    },
    onData(stream, session, callback) {
      simpleParser(stream)
        .then((parsed) => {
          const text = parsed.text ?? '';
          const envelopeTo = session.envelope.rcptTo.map((r) => r.address.toLowerCase());
          const headerTo = addresses(parsed.to);
          const template = parsed.headers.get('x-persona-template');
          messages.push({
            to: envelopeTo.length > 0 ? envelopeTo : headerTo,
            from: parsed.from?.text ?? '',
            replyTo: parsed.replyTo?.text ?? null,
            subject: parsed.subject ?? '',
            text,
            html: typeof parsed.html === 'string' ? parsed.html : '',
            links: linksOf(text),
            template: typeof template === 'string' ? template : null,
            messageId: parsed.messageId ?? null,
            headers: parsed.headers,
            receivedAt: new Date(),
          });
          callback();
        })
        .catch((err: Error) => callback(err));
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const mailTo = (to: string, template?: string) =>
    messages.filter((m) => m.to.includes(to.toLowerCase()) && (template === undefined || m.template === template));
  return Object.assign(capture, {
    url: `smtp://127.0.0.1:${port}`,
    port,
    messages,
    mailTo,
    waitForMail: (to: string, template: string, timeoutMs = 15_000) => waitFor(async () => mailTo(to, template)[0], timeoutMs, `mail ${template} to ${to}`),
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}

/** A message of the development mailbox (`GET /dev/mailbox`). */
export interface MailboxMessage {
  id: string;
  to: string;
  template: string;
  subject: string;
  text: string;
  html: string;
  links: string[];
  created_at: string;
}

/** The development mailbox of `email`, newest first. */
export async function mailbox(server: TestServer, email: string): Promise<MailboxMessage[]> {
  const res = await api(server).get('/dev/mailbox').query({ to: email });
  if (res.status !== 200) throw new Error(`dev mailbox answered ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data as MailboxMessage[];
}

/**
 * Polls the development mailbox until a message of `template` to `email` is there and answers its
 * first link (the action). `count`: wait until that many such messages arrived and answer the
 * newest one's link (a second reset request, say).
 */
export async function mailboxLink(server: TestServer, email: string, template: string, opts: { timeoutMs?: number; count?: number } = {}): Promise<string> {
  const wanted = opts.count ?? 1;
  const message = await waitFor(
    async () => {
      const found = (await mailbox(server, email)).filter((m) => m.template === template);
      return found.length >= wanted ? found[0] : undefined;
    },
    opts.timeoutMs ?? 15_000,
    `${wanted} mailbox message(s) ${template} to ${email}`,
  );
  if (message.links.length === 0) throw new Error(`mailbox message ${template} to ${email} has no link`);
  return message.links[0];
}

/** The `token` query parameter of a mailed link. */
export function tokenFromLink(link: string): string {
  const token = new URL(link).searchParams.get('token');
  if (!token) throw new Error(`no token in ${link}`);
  return token;
}
