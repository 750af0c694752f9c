import { describe, expect, it } from '@jest/globals';
import type { DataSource } from 'typeorm';
import { AppError, type Platform } from '../../../core/index.js';
import type { UsableConnection } from '../domain/connection.js';
import type { ConnectionsRepository } from '../infrastructure/connections.repository.js';
import type { ScheduledPostsRepository } from '../infrastructure/scheduled-posts.repository.js';
import type { MetricsBudget } from './metrics-budget.js';
import type { PlatformClients } from './platform-clients.js';
import { PublishFailure, type CommentsQuery, type InboundComment, type MetricsQuery, type MetricsReading, type PlatformClient, type ReplyRequest, type ReplyResult } from './ports/platform-client.js';
import { PublishingFacade } from './publishing.facade.js';
import type { TokenKeeper } from './token-keeper.js';

const READING: MetricsReading = { followers: 1200, posts: [] };

type Step = MetricsReading | PublishFailure;

/** A platform client whose metric reads answer `steps` in turn, each after the read's `beforeCall`; it records the tokens it was sent. */
function clientAnswering(...steps: Step[]) {
  const tokens: string[] = [];
  const client = {
    async readMetrics(q: MetricsQuery): Promise<MetricsReading> {
      tokens.push(q.accessToken);
      await q.beforeCall?.();
      const step = steps.shift();
      if (!step) throw new Error('no more answers scripted');
      if (step instanceof PublishFailure) throw step;
      return step;
    },
  } as unknown as PlatformClient;
  return { client, tokens };
}

function setup(client: PlatformClient, opts: { mode?: 'live' | 'sandbox'; usable?: Error; budget?: Error; accountId?: string | null; connections?: ConnectionsRepository; posts?: ScheduledPostsRepository } = {}) {
  const asked: Array<string | undefined> = [];
  let n = 0;
  const keeper = {
    async usable(_ws: string, _p: Platform, rejected?: string): Promise<UsableConnection> {
      asked.push(rejected);
      if (opts.usable) throw opts.usable;
      n += 1;
      return { id: 'con_1', mode: opts.mode ?? 'live', accountId: opts.accountId === undefined ? 'acct_1' : opts.accountId, accountName: 'Mia', accessToken: `token-${n}` } as UsableConnection;
    },
  } as unknown as TokenKeeper;
  const spent: string[] = [];
  const paused: string[] = [];
  const budget = {
    async spend(p: Platform, accountId: string) {
      spent.push(`${p}:${accountId}`);
      if (opts.budget) throw opts.budget;
    },
    async pause(p: Platform, accountId: string, retryAfterMs: number | undefined) {
      paused.push(`${p}:${accountId}:${retryAfterMs}`);
    },
  } as unknown as MetricsBudget;
  const clients = { get: () => client } as unknown as PlatformClients;
  const facade = new PublishingFacade({ manager: null } as unknown as DataSource, opts.connections ?? ({} as ConnectionsRepository), opts.posts ?? ({} as ScheduledPostsRepository), clients, keeper, budget);
  return { facade, asked, spent, paused };
}

async function refusal(p: Promise<unknown>): Promise<AppError> {
  const outcome = await p.then(() => null, (err: unknown) => err);
  if (!(outcome instanceof AppError)) throw new Error(`expected an AppError, got ${String(outcome)}`);
  return outcome;
}

describe('PublishingFacade.readAccountMetrics', () => {
  it('reads through the quota reserve and answers the account, its followers and posts', async () => {
    const { client, tokens } = clientAnswering(READING);
    const { facade, spent } = setup(client);
    expect(await facade.readAccountMetrics('ws_1', 'instagram', ['m1'])).toMatchObject({ platform: 'instagram', accountId: 'acct_1', followers: 1200, simulated: false });
    expect(tokens).toEqual(['token-1']);
    expect(spent).toEqual(['instagram:acct_1']);
  });

  it('spends the quota of the connection itself when it never learnt its account id', async () => {
    const { client } = clientAnswering(READING);
    const { facade, spent } = setup(client, { accountId: null });
    await facade.readAccountMetrics('ws_1', 'pinterest', []);
    expect(spent).toEqual(['pinterest:connection:con_1']);
  });

  it('renews a refused token once and reads again with the new one', async () => {
    const { client, tokens } = clientAnswering(new PublishFailure('token_expired', 'refused'), READING);
    const { facade, asked } = setup(client);
    expect((await facade.readAccountMetrics('ws_1', 'twitter', [])).followers).toBe(1200);
    expect(tokens).toEqual(['token-1', 'token-2']);
    // The keeper is told which token the platform refused, so it refreshes rather than hands it back.
    expect(asked).toEqual([undefined, 'token-1']);
  });

  it('gives up after the renewed token is refused too: upstream_failed with token_expired', async () => {
    const { client } = clientAnswering(new PublishFailure('token_expired', 'refused'), new PublishFailure('token_expired', 'refused again'));
    const err = await refusal(setup(client).facade.readAccountMetrics('ws_1', 'twitter', []));
    expect({ code: err.code, details: err.details }).toEqual({ code: 'upstream_failed', details: { platform: 'twitter', code: 'token_expired' } });
  });

  it("pauses metric reads on the platform's 429, with its Retry-After, and answers rate_limited", async () => {
    const { client } = clientAnswering(new PublishFailure('rate_limited', '429', 'before', 7_000));
    const { facade, paused } = setup(client);
    const err = await refusal(facade.readAccountMetrics('ws_1', 'tiktok', []));
    expect({ code: err.code, details: err.details }).toEqual({ code: 'rate_limited', details: { platform: 'tiktok', code: 'rate_limited', retryAfterMs: 7_000 } });
    expect(paused).toEqual(['tiktok:acct_1:7000']);
  });

  it('does not pause again when its own reserve refused the call', async () => {
    const { client, tokens } = clientAnswering(READING);
    const { facade, paused } = setup(client, { budget: new PublishFailure('rate_limited', 'share spent', 'before', 60_000) });
    const err = await refusal(facade.readAccountMetrics('ws_1', 'instagram', []));
    expect(err.code).toBe('rate_limited');
    expect(paused).toEqual([]);
    expect(tokens).toEqual(['token-1']);
  });

  it('reads a sandbox connection without the reserve, marked simulated', async () => {
    const { client } = clientAnswering(READING);
    const { facade, spent } = setup(client, { mode: 'sandbox' });
    expect((await facade.readAccountMetrics('ws_1', 'youtube', [])).simulated).toBe(true);
    expect(spent).toEqual([]);
  });

  it('maps a missing connection to integration_not_connected and anything else to upstream_failed', async () => {
    const { client } = clientAnswering();
    const missing = await refusal(setup(client, { usable: new PublishFailure('not_connected', 'no connection') }).facade.readAccountMetrics('ws_1', 'pinterest', []));
    expect({ code: missing.code, details: missing.details }).toEqual({ code: 'integration_not_connected', details: { platform: 'pinterest', code: 'not_connected' } });
    const { client: broken } = clientAnswering(new PublishFailure('network_error', 'reset'));
    expect((await refusal(setup(broken).facade.readAccountMetrics('ws_1', 'pinterest', []))).details).toEqual({ platform: 'pinterest', code: 'network_error' });
  });
});

/** A platform client whose replies and comment reads answer `steps` in turn; it records what it was sent. */
function replyingClient(...steps: Array<ReplyResult | InboundComment[] | PublishFailure>) {
  const sent: ReplyRequest[] = [];
  const reads: string[] = [];
  const next = () => {
    const step = steps.shift();
    if (!step) throw new Error('no more answers scripted');
    if (step instanceof PublishFailure) throw step;
    return step;
  };
  const client = {
    async sendReply(r: ReplyRequest): Promise<ReplyResult> {
      sent.push(r);
      return next() as ReplyResult;
    },
    async readComments(q: CommentsQuery): Promise<InboundComment[]> {
      reads.push(`${q.accessToken}:${q.account.id}:${q.since?.toISOString() ?? 'null'}`);
      await q.beforeCall?.();
      return next() as InboundComment[];
    },
  } as unknown as PlatformClient;
  return { client, sent, reads };
}

const REPLY = { channel: 'comment' as const, target: 'c_1', text: 'Thanks!', replyId: 'msg_1' };

async function publishFailure(p: Promise<unknown>): Promise<PublishFailure> {
  const outcome = await p.then(() => null, (err: unknown) => err);
  if (!(outcome instanceof PublishFailure)) throw new Error(`expected a PublishFailure, got ${String(outcome)}`);
  return outcome;
}

describe('PublishingFacade.sendReply', () => {
  it('sends the reply with the connection’s token and account', async () => {
    const { client, sent } = replyingClient({ remoteMessageId: 'r_1' });
    expect(await setup(client).facade.sendReply('ws_1', 'instagram', REPLY)).toEqual({ remoteMessageId: 'r_1' });
    expect(sent).toEqual([{ ...REPLY, accessToken: 'token-1', account: { id: 'acct_1', name: 'Mia' } }]);
  });

  it('renews a token refused before the send once and sends again', async () => {
    const { client, sent } = replyingClient(new PublishFailure('token_expired', 'refused'), { remoteMessageId: 'r_2' });
    const { facade, asked } = setup(client);
    expect(await facade.sendReply('ws_1', 'twitter', REPLY)).toEqual({ remoteMessageId: 'r_2' });
    expect(sent.map((r) => r.accessToken)).toEqual(['token-1', 'token-2']);
    expect(asked).toEqual([undefined, 'token-1']);
  });

  it('never sends again after an outcome it does not know, nor after a second refusal', async () => {
    const { client, sent } = replyingClient(new PublishFailure('network_error', '502 after send', 'unknown'));
    expect((await publishFailure(setup(client).facade.sendReply('ws_1', 'twitter', REPLY))).point).toBe('unknown');
    expect(sent).toHaveLength(1);
    const twice = replyingClient(new PublishFailure('token_expired', 'refused'), new PublishFailure('token_expired', 'refused again'));
    expect((await publishFailure(setup(twice.client).facade.sendReply('ws_1', 'twitter', REPLY))).code).toBe('token_expired');
    expect(twice.sent).toHaveLength(2);
  });

  it('throws not_connected without a connection, and content_rejected where the platform takes no replies', async () => {
    const { client, sent } = replyingClient();
    const missing = await publishFailure(setup(client, { usable: new PublishFailure('not_connected', 'no connection') }).facade.sendReply('ws_1', 'youtube', REPLY));
    expect(missing.code).toBe('not_connected');
    expect(sent).toEqual([]);
    const { client: publishOnly } = clientAnswering();
    expect((await publishFailure(setup(publishOnly).facade.sendReply('ws_1', 'tiktok', REPLY))).code).toBe('content_rejected');
  });
});

describe('PublishingFacade.readComments', () => {
  const since = new Date('2026-01-01T00:00:00Z');
  const comment: InboundComment = { remoteMessageId: 'cm_1', authorId: 'UC1', authorName: 'Fan', text: 'hi', createdAt: new Date(), remotePostId: 'vid_1' };

  it('reads through the quota reserve of the account', async () => {
    const { client, reads } = replyingClient([comment]);
    const { facade, spent } = setup(client);
    expect(await facade.readComments('ws_1', 'youtube', since)).toEqual([comment]);
    expect(reads).toEqual([`token-1:acct_1:${since.toISOString()}`]);
    expect(spent).toEqual(['youtube:acct_1']);
  });

  it('answers [] for a sandbox connection without asking the client', async () => {
    const { client, reads } = replyingClient();
    expect(await setup(client, { mode: 'sandbox' }).facade.readComments('ws_1', 'youtube', null)).toEqual([]);
    expect(reads).toEqual([]);
  });

  it('pauses reserve reads on the platform’s 429 and throws it; a refused token is renewed once', async () => {
    const limited = replyingClient(new PublishFailure('rate_limited', '429', 'before', 9_000));
    const { facade, paused } = setup(limited.client);
    expect((await publishFailure(facade.readComments('ws_1', 'twitter', null))).retryAfterMs).toBe(9_000);
    expect(paused).toEqual(['twitter:acct_1:9000']);
    const renewed = replyingClient(new PublishFailure('token_expired', 'refused'), [comment]);
    expect(await setup(renewed.client).facade.readComments('ws_1', 'twitter', null)).toEqual([comment]);
    expect(renewed.reads.map((r) => r.split(':')[0])).toEqual(['token-1', 'token-2']);
  });

  it('answers [] on a platform whose comments arrive by webhook only', async () => {
    const { client } = clientAnswering();
    expect(await setup(client).facade.readComments('ws_1', 'instagram', null)).toEqual([]);
  });
});

describe('PublishingFacade look-ups for webhooks', () => {
  it('answers every workspace connected to the account, and the character of a remote post', async () => {
    const refs = [{ workspaceId: 'ws_1', platform: 'instagram' as const, accountId: '178' }, { workspaceId: 'ws_2', platform: 'instagram' as const, accountId: '178' }];
    const connections = { byAccount: async (_tx: unknown, p: Platform, id: string) => (p === 'instagram' && id === '178' ? refs : []) } as unknown as ConnectionsRepository;
    const posts = { characterOfRemotePost: async (_tx: unknown, ws: string, p: Platform, id: string) => (ws === 'ws_1' && p === 'twitter' && id === 't_1' ? 'chr_1' : null) } as unknown as ScheduledPostsRepository;
    const { facade } = setup(clientAnswering().client, { connections, posts });
    expect(await facade.workspacesOfAccount('instagram', '178')).toEqual(refs);
    expect(await facade.workspacesOfAccount('twitter', '178')).toEqual([]);
    expect(await facade.characterOfRemotePost('ws_1', 'twitter', 't_1')).toBe('chr_1');
    expect(await facade.characterOfRemotePost('ws_2', 'twitter', 't_1')).toBeNull();
  });
});
