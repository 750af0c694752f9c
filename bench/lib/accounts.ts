import pg from 'pg';
import { BENCH_ADMIN } from './backing.js';
import { databaseOf } from './server.js';
import type { ApiClient } from './http.js';

/** A signed-in user and their workspace, as the API reports them. */
export interface Account {
  email: string;
  userId: string;
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
  const me = await api.get<{ user: { id: string }; workspace: { id: string; plan: string; character_limit: number } }>('/auth/me', { token });
  const ws = me.body.workspace;
  return { email, userId: me.body.user.id, token, workspaceId: ws.id, plan: ws.plan, characterLimit: ws.character_limit };
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
 * Opens the verification link mailed to `email`, as its user would. The bench API runs as in
 * production with no SMTP_URL, so it keeps the mail it would send in its database, where the link
 * is read. API keys, publishing and buying need a verified address.
 */
async function verifyEmail(api: ApiClient, email: string): Promise<void> {
  const db = new pg.Client({ connectionString: databaseOf(api.baseUrl) });
  await db.connect();
  try {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const { rows } = await db.query<{ text_body: string }>(
        `SELECT text_body FROM mail_messages WHERE lower(to_address) = lower($1) AND template = 'account.email_verification_requested' AND text_body IS NOT NULL
          ORDER BY created_at DESC LIMIT 1`,
        [email],
      );
      const token = rows[0] && /[?&]token=([^\s&]+)/.exec(rows[0].text_body)?.[1];
      if (token) {
        await api.post('/auth/verify-email', { token: decodeURIComponent(token) }, { expect: 200 });
        return;
      }
      if (Date.now() > deadline) throw new Error(`no verification mail to ${email} was kept within 15 s`);
      await new Promise((r) => setTimeout(r, 20));
    }
  } finally {
    await db.end();
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
