import { normaliseDomain } from './custom-domain.js';

export const SUPPORT_EMAIL_MAX = 254;
const LOCAL_MAX = 64;
/** RFC 5322 dot-atom: atext runs joined by single dots. No quoted local parts, no comments. */
const DOT_ATOM = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;

export type EmailNormalisation = { ok: true; email: string } | { ok: false; problem: string };

const refuse = (why: string): EmailNormalisation => ({ ok: false, problem: `support_email ${why}` });

/**
 * The support address shown on a white-label login page and put into mail links, so it is held
 * to the address itself (RFC 5321 §4.1.2 addr-spec): one `@`, an ASCII dot-atom local part of at
 * most 64 characters, a hostname domain (UTS-46 normalised to its A-label form, not an IP literal),
 * 254 in all. A display name (`Help <help@acme.com>`), a list, quotes, spaces and any control
 * character (CR/LF would split a mail header) are refused. Answers the address as stored.
 */
export function normaliseSupportEmail(value: unknown): EmailNormalisation {
  if (typeof value !== 'string' || value.length === 0) return refuse('must be an email address such as help@acme.com');
  if (value.length > SUPPORT_EMAIL_MAX) return refuse(`must be at most ${SUPPORT_EMAIL_MAX} characters`);
  if (/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u.test(value)) return refuse('must not contain control characters or line breaks');
  if (/[\s<>(),;:"[\]\\]/.test(value)) return refuse('must be the address alone: no display name, spaces, quotes or lists');
  const at = value.lastIndexOf('@');
  if (at <= 0 || value.indexOf('@') !== at) return refuse('must hold exactly one @ with a name before it');
  const local = value.slice(0, at);
  if (local.length > LOCAL_MAX) return refuse(`must have at most ${LOCAL_MAX} characters before the @`);
  if (!DOT_ATOM.test(local)) return refuse('has a part before the @ that is not a plain address (letters, digits, . and !#$%&\'*+/=?^_`{|}~-, no leading, trailing or double dot)');
  const domain = normaliseDomain(value.slice(at + 1), 'the domain of support_email');
  if (!domain.ok) return { ok: false, problem: domain.problem };
  const email = `${local}@${domain.domain.ascii}`;
  if (email.length > SUPPORT_EMAIL_MAX) return refuse(`must be at most ${SUPPORT_EMAIL_MAX} characters once its domain is encoded`);
  return { ok: true, email };
}

export function supportEmailProblem(value: unknown): string | null {
  const n = normaliseSupportEmail(value);
  return n.ok ? null : n.problem;
}
