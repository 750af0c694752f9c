import passport from 'passport';
import { credentialRequest, type Authenticated } from './authenticators.js';

/** Passport answers a strategy's own failure (a thrown validate, a database error) as an Error. */
type PassportCallback = (err: Error | null, user: Authenticated | false | null) => void;

/**
 * Runs a passport strategy on a token that did not come in an HTTP request (a socket's auth
 * message): the same strategies, and so the same checks, as the global guard, handed the same
 * header-only request (see `CredentialRequest`). Null when the strategy refuses.
 */
export function authenticateToken(strategy: string, token: string): Promise<Authenticated | null> {
  const req = credentialRequest(`Bearer ${token}`);
  return new Promise((resolve, reject) => {
    const callback: PassportCallback = (err, user) => (err ? reject(err) : resolve(user || null));
    const middleware: (req: object, res: object, next: (err?: Error) => void) => void = passport.authenticate(strategy, { session: false }, callback);
    // With a callback, passport answers through it and calls `next` only for an error of its own.
    middleware(req, {}, (err?: Error) => reject(err ?? new Error(`passport strategy ${strategy} passed without answering`)));
  });
}
