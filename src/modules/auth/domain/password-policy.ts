/** Password rules shared by sign-up and the admin CLI (contract §3: 8 to 128 characters). */
export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 128;

/** Answers why a password is refused, or null when it is acceptable. */
export function passwordProblem(password: string): string | null {
  if (password.length < PASSWORD_MIN_LENGTH) return `The password must be at least ${PASSWORD_MIN_LENGTH} characters.`;
  if (password.length > PASSWORD_MAX_LENGTH) return `The password must be at most ${PASSWORD_MAX_LENGTH} characters.`;
  return null;
}

/** Field messages of the guessability rule (OWASP ASVS 2.1.7); they say why without echoing the password. */
export const TOO_COMMON =
  'password is too common: it is a frequently used or breached password, or one with only case changes, letter-for-symbol swaps or digits and symbols added; choose a longer, less predictable one';
export const CONTAINS_EMAIL = 'password contains your email address; choose one that does not';

/** An email's name part shorter than this is too likely to occur by chance inside a good password. */
const MIN_EMAIL_NAME = 4;
/** Digits and symbols people put before or after a word ("Qwerty2024!", "!!monkey"). */
const EDGE_DECORATION = /^[^\p{L}]+|[^\p{L}]+$/gu;
/** The swaps people use to "strengthen" a word; 1 is tried as both i and l. */
const LEET: Readonly<Record<string, string>> = { '0': 'o', '3': 'e', '4': 'a', '5': 's', '7': 't', '@': 'a', $: 's', '!': 'i', '|': 'l' };
const SHORTEST_WORD = 3;

/**
 * The words a password is trivially built on: itself lower-cased, without the digits and symbols
 * around it, and those with the common letter swaps undone. Refusing a password when any of these
 * is in the dictionary is the whole rule, so it can be explained in one sentence.
 */
export function passwordVariants(password: string): Set<string> {
  const lower = password.toLowerCase();
  const core = lower.replace(EDGE_DECORATION, '');
  const bases = core.length >= SHORTEST_WORD ? [lower, core] : [lower];
  const out = new Set<string>();
  for (const base of bases) {
    out.add(base);
    for (const one of ['i', 'l']) {
      const unswapped = [...base].map((c) => (c === '1' ? one : (LEET[c] ?? c))).join('');
      out.add(unswapped);
      const unswappedCore = unswapped.replace(EDGE_DECORATION, '');
      if (unswappedCore.length >= SHORTEST_WORD) out.add(unswappedCore);
    }
  }
  return out;
}

/** One short group repeated ("aaaaaaaa", "abcabcabc", "12121212"): no dictionary needed to guess it. */
function isRepetition(lower: string): boolean {
  return /^(.{1,4})\1+$/su.test(lower);
}

/** The name part of an email, when it is long enough to be a meaningful guess. */
function emailName(email: string | undefined): string | null {
  const at = email?.lastIndexOf('@') ?? -1;
  const name = at > 0 ? email!.slice(0, at).trim().toLowerCase() : '';
  return name.length >= MIN_EMAIL_NAME ? name : null;
}

/**
 * Why a password is easy to guess, or null: it contains the email's name part (as typed or with
 * swaps undone), is one short group repeated, or is built on a dictionary password (`isCommon`).
 */
export function guessablePasswordProblem(password: string, email: string | undefined, isCommon: (word: string) => boolean): string | null {
  const variants = passwordVariants(password);
  const name = emailName(email);
  if (name && [...variants].some((v) => v.includes(name))) return CONTAINS_EMAIL;
  if (isRepetition(password.toLowerCase())) return TOO_COMMON;
  return [...variants].some(isCommon) ? TOO_COMMON : null;
}

/** Emails are compared and stored trimmed and lower case. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** The name shown when none is given: the email's local part, capped to the display-name limit. */
export function defaultDisplayName(email: string, maxLength = 80): string {
  const at = email.indexOf('@');
  return (at > 0 ? email.slice(0, at) : email).slice(0, maxLength);
}
