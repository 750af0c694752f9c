import { Injectable } from '@nestjs/common';
import { AccountsRepository } from '../infrastructure/accounts.repository.js';
import { TwoFactorRepository } from '../infrastructure/two-factor.repository.js';
import { AuthService, type SignedIn } from './auth.service.js';
import { invalidMfaToken, MfaChallenges } from './mfa-challenges.js';
import { SecondFactor, type SecondFactorProof } from './second-factor.js';
import type { ClientInfo } from './sessions.service.js';

/**
 * The second step of a sign-in with two-factor on: the token from the password step and a code (or
 * a recovery code) start the session, through the same bookkeeping as a password-only sign-in. The
 * token, the code's step (or the recovery code) and the session are spent or made in one transaction.
 */
@Injectable()
export class MfaSignIn {
  constructor(
    private readonly challenges: MfaChallenges,
    private readonly factors: SecondFactor,
    private readonly repo: TwoFactorRepository,
    private readonly accounts: AccountsRepository,
    private readonly auth: AuthService,
  ) {}

  async verify(mfaToken: string, proof: SecondFactorProof, client: ClientInfo): Promise<SignedIn> {
    const challenge = await this.challenges.find(mfaToken);
    return this.factors.attempt(challenge.userId, async () => {
      const account = await this.accounts.findUserWithWorkspace(challenge.userId);
      if (!account || account.user.status !== 'active') throw invalidMfaToken();
      return this.auth.startSignedInSession(account.user, client, async (tx) => {
        const state = await this.repo.findTotp(challenge.userId, tx, true);
        if (!state) throw invalidMfaToken();
        await this.factors.spend(tx, state, proof);
        await this.challenges.consume(tx, challenge.id);
      });
    });
  }
}
