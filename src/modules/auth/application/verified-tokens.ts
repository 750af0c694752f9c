import type { AccessClaims } from './access-tokens.js';

interface Verified {
  claims: AccessClaims;
  /** The token's `exp`, in milliseconds. */
  expiresAtMs: number;
}

/**
 * Access tokens this process has verified (signature, algorithm, issuer, audience), by their exact
 * text, until their `exp`. The same bytes verify the same way every time but for the clock, so a
 * token seen again needs only its expiry checked: a signed-in client sends one token for its whole
 * lifetime, and verifying it again cost a tenth of the request. Whether its session still stands is
 * the session check's to decide, on every request. Bounded: the oldest token makes room.
 */
export class VerifiedTokens {
  private readonly byToken = new Map<string, Verified>();

  constructor(
    private readonly capacity = 10_000,
    private readonly now: () => number = () => Date.now(),
  ) {}

  /** The claims of a token verified before and not yet expired; undefined for any other. */
  claimsOf(token: string): AccessClaims | undefined {
    const entry = this.byToken.get(token);
    if (entry === undefined) return undefined;
    // As jsonwebtoken decides: expired once the clock's second reaches `exp`.
    if (this.now() < entry.expiresAtMs) return entry.claims;
    this.byToken.delete(token);
    return undefined;
  }

  /** Remembers a token just verified, with its claims and its `exp` in seconds. */
  remember(token: string, claims: AccessClaims, expSeconds: number): void {
    if (this.byToken.size >= this.capacity && !this.byToken.has(token)) {
      const oldest = this.byToken.keys().next();
      if (!oldest.done) this.byToken.delete(oldest.value);
    }
    this.byToken.set(token, { claims, expiresAtMs: expSeconds * 1000 });
  }

  get size(): number {
    return this.byToken.size;
  }
}
