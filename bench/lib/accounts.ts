import { BENCH_ADMIN } from './backing.js';
import type { ApiClient } from './http.js';

/** A signed-in user and their workspace, as the API reports them. */
export interface Account {
  email: string;
  token: string;
  workspaceId: string;
  plan: string;
  characterLimit: number;
}

export const BENCH_PASSWORD = 'bench-password-123';

export async function adminToken(api: ApiClient): Promise<string> {
  const res = await api.post<{ access_token: string }>('/auth/login', { email: BENCH_ADMIN.email, password: BENCH_ADMIN.password });
  return res.body.access_token;
}

async function describe(api: ApiClient, email: string, token: string): Promise<Account> {
  const me = await api.get<{ workspace: { id: string; plan: string; character_limit: number } }>('/auth/me', { token });
  const ws = me.body.workspace;
  return { email, token, workspaceId: ws.id, plan: ws.plan, characterLimit: ws.character_limit };
}

export async function register(api: ApiClient, email: string): Promise<Account> {
  const res = await api.post<{ access_token: string }>(
    '/auth/register',
    { email, password: BENCH_PASSWORD, accept_terms: true, accept_privacy: true },
    { expect: 201 },
  );
  await verifyEmail(api, email);
  return describe(api, email, res.body.access_token);
}

/**
 * Opens the verification link mailed to `email`, as a user does: the bench API keeps mail in its
 * development mailbox (no SMTP_URL). API keys, publishing and buying need a verified address.
 */
async function verifyEmail(api: ApiClient, email: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const { body } = await api.get<{ data: Array<{ template: string; links: string[] }> }>(`/dev/mailbox?to=${encodeURIComponent(email)}`);
    const link = body.data.find((m) => m.template === 'account.email_verification_requested')?.links[0];
    if (link) {
      const token = new URL(link).searchParams.get('token');
      if (!token) throw new Error(`the verification link mailed to ${email} has no token: ${link}`);
      await api.post('/auth/verify-email', { token }, { expect: 200 });
      return;
    }
    if (Date.now() > deadline) throw new Error(`no verification mail reached ${email} within 15 s`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Moves the account's workspace to `plan` through the admin API and answers it as it is now. */
export async function setPlan(api: ApiClient, admin: string, account: Account, plan: 'starter' | 'pro' | 'agency'): Promise<Account> {
  await api.patch(`/admin/workspaces/${account.workspaceId}`, { plan }, { token: admin });
  const now = await describe(api, account.email, account.token);
  if (now.plan !== plan) throw new Error(`workspace ${account.workspaceId} is on ${now.plan} after moving it to ${plan}`);
  return now;
}

/** Connects a platform through the real OAuth flow: our auth URL, the fake's consent, our callback. */
export async function connectPlatform(client: ApiClient, owner: Account, platform: string): Promise<void> {
  const { body } = await client.get<{ url: string }>(`/integrations/${platform}/auth-url?redirect=/bench`, { token: owner.token });
  const consent = await fetch(body.url, { redirect: 'manual' });
  const callback = consent.headers.get('location');
  if (!callback) throw new Error(`${platform} consent did not redirect: ${consent.status}`);
  const back = await fetch(callback, { redirect: 'manual' });
  if (!back.headers.get('location')?.includes(`connected=${platform}`)) throw new Error(`${platform} callback answered ${back.status} ${back.headers.get('location')}`);
}
