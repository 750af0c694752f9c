import { Injectable } from '@nestjs/common';
import { AppError } from '../../../core/index.js';
import { guessablePasswordProblem } from '../domain/password-policy.js';
import { CommonPasswords } from '../infrastructure/common-passwords.js';

/**
 * The guessability rule every password a user sets must pass (OWASP ASVS 2.1.7), on top of the
 * length the request validation already checked.
 */
@Injectable()
export class PasswordRules {
  constructor(private readonly common: CommonPasswords) {}

  static standalone(): PasswordRules {
    return new PasswordRules(new CommonPasswords());
  }

  /** Why `password` is easy to guess for the account of `email`, or null. */
  async guessable(password: string, email?: string): Promise<string | null> {
    const words = await this.common.load();
    return guessablePasswordProblem(password, email, (w) => words.has(w));
  }

  /** Throws 400 `validation_failed` naming the `password` field when the password is guessable. */
  async assertNotGuessable(password: string, email?: string): Promise<void> {
    const problem = await this.guessable(password, email);
    if (problem) throw new AppError('validation_failed', problem, [{ field: 'password', message: problem }]);
  }
}
