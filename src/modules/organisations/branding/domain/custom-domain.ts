import { domainToASCII, domainToUnicode } from 'node:url';

/**
 * Custom domains (contract §14, issue 24): how a claimed host is normalised, compared for
 * look-alikes, and proven. Pure rules; the claim's life is in domain-claim.ts.
 */

const HOSTNAME_MAX = 253;
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
/**
 * Characters the WHATWG host parser behind `domainToASCII` would quietly act on: it drops a path
 * after `/`, decodes `%41`, and reads `user@host:port`. A claim with any of them is refused rather
 * than reinterpreted, so what is stored is what the owner typed.
 */
const NOT_IN_A_HOST = /[\s/\\:@?#%[\]<>^|"'`{}\p{Cc}]/u;

/** A host in both of its forms: the A-label form stored and compared, the Unicode form shown. */
export interface NormalisedDomain {
  ascii: string;
  unicode: string;
}

export type DomainNormalisation = { ok: true; domain: NormalisedDomain } | { ok: false; problem: string };

const refuse = (problem: string): DomainNormalisation => ({ ok: false, problem });

/**
 * UTS-46 processing (`domainToASCII` maps case, width and compatibility forms, and encodes Unicode
 * labels as `xn--` punycode; non-transitional, as browsers resolve), then the hostname rules on
 * the result: at least two labels, letters/digits/inner hyphens, 63 per label, 253 in all, no
 * `--` in positions 3-4 but a valid `xn--` label, and not an IP address in any of its forms.
 */
export function normaliseDomain(value: unknown, field = 'custom_domain'): DomainNormalisation {
  if (typeof value !== 'string' || value.length === 0) return refuse(`${field} must be a hostname such as app.example.com`);
  if (value.length > HOSTNAME_MAX) return refuse(`${field} must be at most ${HOSTNAME_MAX} characters`);
  if (NOT_IN_A_HOST.test(value)) return refuse(`${field} must be a bare hostname, without scheme, port, path or spaces`);
  const ascii = domainToASCII(value);
  if (ascii === '') return refuse(`${field} is not a valid internationalised hostname`);
  const problem = asciiHostProblem(ascii, field);
  if (problem) return refuse(problem);
  return { ok: true, domain: { ascii, unicode: domainToUnicode(ascii) } };
}

function asciiHostProblem(ascii: string, field: string): string | null {
  if (ascii.length > HOSTNAME_MAX) return `${field} must be at most ${HOSTNAME_MAX} characters once encoded`;
  const labels = ascii.split('.');
  if (labels.length < 2) return `${field} must have at least one dot (app.example.com)`;
  if (labels.some((l) => l.length > 63)) return `each part of ${field} must be at most 63 characters`;
  if (!labels.every((l) => LABEL.test(l))) return `${field} may hold only letters, digits and inner hyphens between its dots`;
  if (labels.some((l) => l.slice(2, 4) === '--' && !l.startsWith('xn--'))) return `${field} may not have "--" as the 3rd and 4th characters of a part`;
  if (/^\d+$/.test(labels[labels.length - 1]) || /^0x[0-9a-f]*$/.test(labels[labels.length - 1])) return `${field} must be a hostname, not an IP address`;
  // A label that decodes to something UTS-46 would map differently is not in its canonical form.
  if (domainToASCII(domainToUnicode(ascii)) !== ascii) return `${field} is not in its canonical internationalised form`;
  return null;
}

/** Why `value` is not a custom domain we accept, or null; the message names the rule. */
export function customDomainProblem(value: unknown): string | null {
  const n = normaliseDomain(value);
  return n.ok ? null : n.problem;
}

/**
 * Letters that render like a Latin letter or digit in common fonts (after NFKD and dropping
 * combining marks): the Cyrillic and Greek look-alikes, dotless and small-capital forms, and the
 * digits 0 and 1. Not all of Unicode's confusables list, but the ones used to fake a Latin domain.
 */
const LOOKS_LIKE: Record<string, string> = {
  // Cyrillic
  а: 'a', в: 'b', г: 'r', е: 'e', ё: 'e', з: '3', і: 'i', ї: 'i', ј: 'j', к: 'k', м: 'm', н: 'h', о: 'o', п: 'n', р: 'p', с: 'c',
  т: 't', у: 'y', х: 'x', ь: 'b', ѕ: 's', һ: 'h', ԁ: 'd', ԛ: 'q', ԝ: 'w', ӏ: 'l', ү: 'y', ѡ: 'w', ɡ: 'g',
  // Greek
  α: 'a', β: 'b', γ: 'y', ε: 'e', η: 'n', ι: 'i', κ: 'k', ν: 'v', ο: 'o', ρ: 'p', τ: 't', υ: 'u', χ: 'x', ω: 'w', ϲ: 'c', ϳ: 'j',
  // Latin variants and digits
  ı: 'i', ɩ: 'i', ȷ: 'j', ɑ: 'a', '0': 'o', '1': 'l',
};
/** Letter pairs that read as one letter at a glance. */
const LOOKS_LIKE_PAIRS: Array<[RegExp, string]> = [
  [/rn/g, 'm'],
  [/vv/g, 'w'],
];

/**
 * The look-alike skeleton of an A-label domain: two domains with the same skeleton read the same
 * to a person, so one may not be verified while the other is. `1` becomes `l`, dotless `ı`
 * becomes `i`, `0` becomes `o`; `rn` becomes `m`; Cyrillic `а` becomes `a`; accents are dropped.
 */
export function domainSkeleton(ascii: string): string {
  const base = domainToUnicode(ascii).normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();
  const mapped = [...base].map((c) => LOOKS_LIKE[c] ?? c).join('');
  return LOOKS_LIKE_PAIRS.reduce((s, [pair, one]) => s.replace(pair, one), mapped);
}

/** The DNS name an owner publishes the proof at. */
export function verificationRecordName(ascii: string): string {
  return `_persona-studio.${ascii}`;
}

const RECORD_PREFIX = 'persona-studio-verification=';

/** The TXT value that proves a claim: its own random token, so another claim's record proves nothing. */
export function verificationRecordValue(token: string): string {
  return `${RECORD_PREFIX}${token}`;
}

/** Whether any TXT record (its strings joined, as RFC 7208 §3.3 reads long ones) is the claim's proof. */
export function provesClaim(records: readonly string[], token: string): boolean {
  const expected = verificationRecordValue(token);
  return records.some((r) => r.trim() === expected);
}
