/** Password rules shared by sign-up and the admin CLI (contract §3: 8 to 128 characters). */
export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 128;

/** Answers why a password is refused, or null when it is acceptable. */
export function passwordProblem(password: string): string | null {
  if (password.length < PASSWORD_MIN_LENGTH) return `The password must be at least ${PASSWORD_MIN_LENGTH} characters.`;
  if (password.length > PASSWORD_MAX_LENGTH) return `The password must be at most ${PASSWORD_MAX_LENGTH} characters.`;
  return null;
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
