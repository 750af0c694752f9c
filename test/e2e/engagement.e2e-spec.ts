import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { api, loginAdmin, missingId, registerUser, setPlan, type TestUser } from '../helpers/api.js';
import { E2E_MODE } from '../helpers/env.js';
import { inviteAndAccept, switchTo } from '../helpers/invitations.js';
import { createBacking, startServer, startWorker, waitFor, type Backing, type RunningProcess, type TestServer } from '../helpers/server.js';
import { authedSocket, type TestSocket } from '../helpers/socket.js';
import { startFakeOpenAi, type FakeOpenAi } from '../fakes/openai-server.js';
import { closePlatformFakes, platformEnv, startPlatformFakes, type PlatformFakes } from '../fakes/platforms/index.js';

type Json = Record<string, any>;
type Responder = 'instagram' | 'twitter' | 'youtube';

const APP_URL = 'http://app.e2e.test';
const OPENAI_KEY = 'sk-e2e-engagement';
const VERIFY_TOKEN = 'e2e-verify-token';
const DELAY_SECONDS = 1;

/**
 * The comment and DM responder end to end, on the platforms' fakes in live mode: Instagram and X
 * deliver signed webhooks, YouTube is polled; replies go out through the fakes exactly once.
 */
describe('engagement: conversations and the responder', () => {
  let fakes: PlatformFakes;
  let openai: FakeOpenAi;
  let backing: Backing;
  let server: TestServer;
  let worker: RunningProcess | undefined;
  let owner: TestUser;
  let character: string;
  let socket: TestSocket;
  let asViewer: { Authorization: string };
  let seq = 0;

  const unique = (tag: string) => `${tag}_${Date.now().toString(36)}_${++seq}`;
  const accountOf = (p: Responder) => fakes[p].options.accountId!;

  /** An Instagram delivery as Meta signs it: HMAC-SHA256 of the exact bytes with the app secret, hex. */
  const instagram = (payload: unknown, secret = fakes.instagram.options.clientSecret) => {
    const body = JSON.stringify(payload);
    return api(server).post('/webhooks/instagram').set('Content-Type', 'application/json')
      .set('X-Hub-Signature-256', `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`).send(body);
  };
  /** An X Account Activity delivery: HMAC-SHA256 with the consumer secret, base64. */
  const x = (payload: unknown, secret = fakes.twitter.options.clientSecret) => {
    const body = JSON.stringify(payload);
    return api(server).post('/webhooks/x').set('Content-Type', 'application/json')
      .set('x-twitter-webhooks-signature', `sha256=${createHmac('sha256', secret).update(body).digest('base64')}`).send(body);
  };
  /** A comment made on the fake (so the account may reply under it), as Meta's comments webhook describes it. */
  const igComment = (from: string, text: string): { id: string; payload: Json } => {
    const c = fakes.instagram.receiveComment({ mediaId: 'media_unknown', text, fromId: from, username: `fan_${from}` });
    return { id: c.id, payload: { object: 'instagram', entry: [{ id: c.accountId, time: c.time, changes: [{ field: 'comments', value: { id: c.id, text: c.text, from: c.from, media: c.media } }] }] } };
  };
  /** A direct message to the account (opening the fake's 24-hour window), or with `echo` one the account sent. */
  const igMessage = (mid: string, sender: string, recipient: string, text: string, echo = false) => {
    if (!echo) fakes.instagram.receiveMessage({ fromId: sender, text });
    return {
      object: 'instagram',
      entry: [{ id: accountOf('instagram'), time: Math.floor(Date.now() / 1000), messaging: [{ sender: { id: sender }, recipient: { id: recipient }, timestamp: Date.now(), message: { mid, text, ...(echo ? { is_echo: true } : {}) } }] }],
    };
  };
  const xDm = (id: string, sender: string, text: string) => ({
    for_user_id: accountOf('twitter'),
    direct_message_events: [{ type: 'message_create', id, created_timestamp: String(Date.now()), message_create: { target: { recipient_id: accountOf('twitter') }, sender_id: sender, message_data: { text } } }],
    users: { [sender]: { id: sender, screen_name: `x_${sender}` } },
  });

  const setResponder = async (body: Json, auth = owner.auth, id = character) => api(server).put(`/characters/${id}/responder`).set(auth).send(body);
  const conversations = async (query: Json = {}): Promise<Json[]> => {
    const res = await api(server).get(`/characters/${character}/conversations`).query({ page_size: 100, ...query }).set(owner.auth);
    expect(res.status).toBe(200);
    return res.body.conversations as Json[];
  };
  const conversationWith = async (platform: Responder, userId: string): Promise<Json> =>
    waitFor(async () => (await conversations({ platform })).find((c) => c.platform_user_id === userId), 10_000, `a ${platform} conversation with ${userId}`);
  const read = async (id: string): Promise<{ conversation: Json; messages: Json[] }> => {
    const res = await api(server).get(`/conversations/${id}`).set(owner.auth);
    expect(res.status).toBe(200);
    return res.body;
  };
  const messageWhere = (id: string, pred: (m: Json) => boolean, what: string, timeoutMs = 15_000): Promise<Json> =>
    waitFor(async () => (await read(id)).messages.find(pred), timeoutMs, what);
  const repliesTo = (p: Responder) => fakes[p].replies;

  /** The real OAuth round trip against a fake: auth URL → the fake's consent → our callback. */
  const connect = async (p: Responder): Promise<void> => {
    const authUrl = await api(server).get(`/integrations/${p}/auth-url`).query({ redirect: '/x' }).set(owner.auth);
    expect(authUrl.status).toBe(200);
    const consent = await fetch(authUrl.body.url as string, { redirect: 'manual' });
    const callback = new URL(consent.headers.get('location')!);
    const back = await fetch(`http://127.0.0.1:${server.port}${callback.pathname}${callback.search}`, { redirect: 'manual' });
    expect(back.status).toBe(302);
    expect(back.headers.get('location')).toBe(`${APP_URL}/x?connected=${p}`);
  };

  beforeAll(async () => {
    fakes = await startPlatformFakes();
    openai = await startFakeOpenAi({ apiKey: OPENAI_KEY });
    backing = await createBacking();
    const env = {
      ...platformEnv({ instagram: fakes.instagram, twitter: fakes.twitter, youtube: fakes.youtube }),
      // Replies are drafted by the OpenAI adapter, against the fake chat completions server.
      TEXT_PROVIDER: 'openai',
      OPENAI_BASE_URL: openai.url,
      OPENAI_API_KEY: OPENAI_KEY,
      APP_URL,
      INSTAGRAM_WEBHOOK_VERIFY_TOKEN: VERIFY_TOKEN,
      ENGAGEMENT_POLL_INTERVAL: '300',
      ENGAGEMENT_POLL_PLATFORMS: 'youtube,x',
      OUTBOX_POLL_MS: '50',
      OPEN_RATE_LIMIT_PER_MINUTE: '10000',
      RATE_LIMIT_MULTIPLIER: '50',
    };
    server = await startServer(backing, env);
    if (E2E_MODE === 'services') worker = await startWorker(backing, env);
    owner = await registerUser(server);
    const res = await api(server).post('/characters').set(owner.auth).send({ name: 'Luna', niche: 'gardening', personality: { tone: 'warm' } });
    expect(res.status).toBe(201);
    character = res.body.character.id;
    for (const p of ['instagram', 'twitter', 'youtube'] as const) await connect(p);
    socket = await authedSocket(server.wsUrl, owner.token);
  }, 120_000);

  afterAll(async () => {
    socket?.close();
    await Promise.all([server?.stop(), worker?.stop()]);
    await closePlatformFakes(fakes);
    await openai?.close();
    await backing?.cleanup();
  });

  describe('the platforms’ webhook checks', () => {
    it('answers Meta’s subscription check with the challenge, and refuses a wrong verify token', async () => {
      const ok = await api(server).get('/webhooks/instagram').query({ 'hub.mode': 'subscribe', 'hub.verify_token': VERIFY_TOKEN, 'hub.challenge': '1158201444' });
      expect(ok.status).toBe(200);
      expect(ok.text).toBe('1158201444');
      const wrong = await api(server).get('/webhooks/instagram').query({ 'hub.mode': 'subscribe', 'hub.verify_token': 'nope', 'hub.challenge': '1158201444' });
      expect(wrong.status).toBe(401);
      expect(wrong.text).not.toContain('1158201444');
    });

    it('answers X’s CRC check with the HMAC of the token', async () => {
      const res = await api(server).get('/webhooks/x').query({ crc_token: 'crc-abc' });
      expect(res.status).toBe(200);
      expect(res.body.response_token).toBe(`sha256=${createHmac('sha256', fakes.twitter.options.clientSecret).update('crc-abc').digest('base64')}`);
    });

    it('refuses unsigned and wrongly signed deliveries with 401, storing nothing', async () => {
      const body = JSON.stringify(igComment('u_unsigned', 'hello').payload);
      const unsigned = await api(server).post('/webhooks/instagram').set('Content-Type', 'application/json').send(body);
      expect(unsigned.status).toBe(401);
      expect(unsigned.body.code).toBe('unauthorized');
      expect((await instagram(igComment('u_unsigned', 'hello').payload, 'not-the-secret')).status).toBe(401);
      expect((await x(xDm(unique('dm'), 'u_unsigned', 'hello'), 'not-the-secret')).status).toBe(401);
      const xUnsigned = await api(server).post('/webhooks/x').set('Content-Type', 'application/json').send(JSON.stringify(xDm(unique('dm'), 'u_unsigned', 'hi')));
      expect(xUnsigned.status).toBe(401);
      expect(await conversations()).toEqual([]);
    });

    it('refuses a signed body that is not a platform event with 400', async () => {
      const res = await instagram({ hello: 'world' });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('validation_failed');
    });
  });

  describe('responder settings', () => {
    it('are off by default, and an editor sets them (audited)', async () => {
      const initial = await api(server).get(`/characters/${character}/responder`).set(owner.auth);
      expect(initial.status).toBe(200);
      expect(initial.body.responder).toMatchObject({ character_id: character, enabled: false, platforms_enabled: [], mode: 'review', updated_at: null });
      const set = await setResponder({ enabled: true, platforms_enabled: ['instagram', 'x', 'youtube'], mode: 'auto', response_delay_seconds: DELAY_SECONDS, max_replies_per_hour: 50, banned_topics: ['crypto'], greeting_message: 'Hi from Luna!' });
      expect(set.status).toBe(200);
      expect(set.body.responder).toMatchObject({ enabled: true, platforms_enabled: ['instagram', 'twitter', 'youtube'], mode: 'auto', response_delay_seconds: 1, max_replies_per_hour: 50, banned_topics: ['crypto'] });
      const partial = await setResponder({ greeting_message: null });
      expect(partial.body.responder).toMatchObject({ enabled: true, greeting_message: null, banned_topics: ['crypto'] });
      const audit = await api(server).get(`/organizations/${owner.workspace.id}/audit-log`).query({ action: 'responder.updated' }).set(owner.auth);
      expect(audit.status).toBe(200);
      expect(audit.body.entries.length).toBeGreaterThanOrEqual(2);
      expect(audit.body.entries[0]).toMatchObject({ action: 'responder.updated', target_id: character });
    });

    it('refuses out-of-range values naming the field', async () => {
      for (const body of [{ max_replies_per_hour: 201 }, { max_replies_per_hour: 0 }, { response_delay_seconds: 3601 }, { mode: 'yolo' }, { platforms_enabled: ['tiktok'] }, { banned_topics: ['x'.repeat(81)] }]) {
        const res = await setResponder(body);
        expect(res.status).toBe(400);
        expect(res.body.code).toBe('validation_failed');
        expect(JSON.stringify(res.body.details)).toContain(Object.keys(body)[0]);
      }
    });

    it('lets viewers read and not write, and answers another workspace’s character as missing', async () => {
      const viewer = await registerUser(server);
      await setPlan(server, await loginAdmin(server), owner.workspace.id, 'pro');
      await inviteAndAccept(server, owner.auth, owner.workspace.id, viewer, 'viewer');
      asViewer = await switchTo(server, viewer.auth, owner.workspace.id);
      expect((await api(server).get(`/characters/${character}/responder`).set(asViewer)).status).toBe(200);
      const write = await setResponder({ enabled: false }, asViewer);
      expect(write.status).toBe(403);
      const stranger = await registerUser(server);
      expect((await api(server).get(`/characters/${character}/responder`).set(stranger.auth)).status).toBe(404);
      expect((await setResponder({ enabled: false }, stranger.auth)).status).toBe(404);
      expect((await api(server).get(`/characters/${missingId('char')}/conversations`).set(owner.auth)).status).toBe(404);
    });
  });

  describe('inbound messages and auto replies', () => {
    it('stores an Instagram comment once though delivered twice, and replies once under it after the delay', async () => {
      const { id: commentId, payload: delivery } = igComment('u_ig1', 'Your garden is lovely! What do you grow?');
      const first = await instagram(delivery);
      expect(first.status).toBe(200);
      expect(first.body).toEqual({ received: true, stored: 1, duplicates: 0 });
      const second = await instagram(delivery);
      expect(second.body).toEqual({ received: true, stored: 0, duplicates: 1 });
      await socket.waitFor((m) => m.type === 'conversation.message' && m.message.platform_message_id === commentId);

      const conversation = await conversationWith('instagram', 'u_ig1');
      expect(conversation).toMatchObject({ character_id: character, platform: 'instagram', platform_user_name: 'fan_u_ig1', status: 'open' });
      const sent = await messageWhere(conversation.id, (m) => m.direction === 'outbound' && m.status === 'sent', 'the auto reply to be sent');
      const { messages } = await read(conversation.id);
      const inbound = messages.filter((m) => m.direction === 'inbound');
      expect(inbound).toHaveLength(1);
      expect(inbound[0]).toMatchObject({ channel: 'comment', origin: 'audience', status: 'received', platform_message_id: commentId, text: 'Your garden is lovely! What do you grow?' });
      expect(sent).toMatchObject({ channel: 'comment', origin: 'auto', reply_to_id: inbound[0].id, error: null });
      expect(new Date(sent.sent_at).getTime() - new Date(inbound[0].created_at).getTime()).toBeGreaterThanOrEqual(DELAY_SECONDS * 1000 - 50);
      const toComment = repliesTo('instagram').filter((r) => r.target === commentId);
      expect(toComment).toHaveLength(1);
      expect(toComment[0]).toMatchObject({ channel: 'comment', text: sent.text });
      expect(sent.platform_message_id).toBe(toComment[0].id);
    });

    it('stores an X direct message and answers it once by DM', async () => {
      const dmId = unique('x_dm');
      const res = await x(xDm(dmId, '9001', 'hey Luna, any tips for tomatoes?'));
      expect(res.status).toBe(200);
      expect((await x(xDm(dmId, '9001', 'hey Luna, any tips for tomatoes?'))).body.duplicates).toBe(1);
      const conversation = await conversationWith('twitter', '9001');
      expect(conversation.platform_user_name).toBe('x_9001');
      const sent = await messageWhere(conversation.id, (m) => m.direction === 'outbound' && m.status === 'sent', 'the DM reply');
      expect(sent.channel).toBe('dm');
      const toUser = repliesTo('twitter').filter((r) => r.target === '9001');
      expect(toUser).toHaveLength(1);
      expect(toUser[0].channel).toBe('dm');
    });

    it('never answers the character’s own messages', async () => {
      const before = repliesTo('instagram').length;
      const echo = await instagram(igMessage(unique('mid'), accountOf('instagram'), 'u_ig_echo', 'Thanks for following!', true));
      expect(echo.body.stored).toBe(1);
      const conversation = await conversationWith('instagram', 'u_ig_echo');
      const { messages } = await read(conversation.id);
      expect(messages).toHaveLength(1);
      expect(messages[0]).toMatchObject({ direction: 'outbound', origin: 'platform', status: 'sent' });
      // A message from the audience after it is answered, which shows the echo was not.
      await instagram(igMessage(unique('mid'), 'u_ig_echo', accountOf('instagram'), 'you are welcome'));
      await messageWhere(conversation.id, (m) => m.origin === 'auto' && m.status === 'sent', 'the reply to the follower');
      expect((await read(conversation.id)).messages.filter((m) => m.origin === 'auto')).toHaveLength(1);
      expect(repliesTo('instagram').length).toBe(before + 1);
    });

    it('reads YouTube comments by polling and answers them under the comment', async () => {
      await waitFor(async () => fakes.youtube.requestsTo('/youtube/v3/commentThreads', 'GET').length > 0 || undefined, 10_000, 'a first comment read');
      const { id } = fakes.youtube.addComment({ videoId: 'video_1', authorChannelId: 'UC_fan', authorName: 'Garden Fan', text: 'Great video!', publishedAt: new Date(Date.now() + 1000) });
      const conversation = await conversationWith('youtube', 'UC_fan');
      await messageWhere(conversation.id, (m) => m.origin === 'auto' && m.status === 'sent', 'the YouTube reply');
      expect(repliesTo('youtube').filter((r) => r.target === id)).toHaveLength(1);
    });
  });

  describe('X mentions by polling', () => {
    it('reads mentions where the plan has no webhooks, and answers each with one reply post', async () => {
      await waitFor(async () => fakes.twitter.requestsTo(`/2/users/${accountOf('twitter')}/mentions`, 'GET').length > 0 || undefined, 10_000, 'a first mentions read');
      const mention = fakes.twitter.addMention({ text: '@luna_grows love the tomatoes', authorId: '7777', authorUsername: 'tomato_fan', createdAt: new Date(Date.now() + 1500) });
      const conversation = await conversationWith('twitter', '7777');
      const sent = await messageWhere(conversation.id, (m) => m.origin === 'auto' && m.status === 'sent', 'the reply post');
      expect(sent.channel).toBe('comment');
      expect(fakes.twitter.repliesTo(mention.id)).toHaveLength(1);
    });
  });

  describe('replies that wait for a person', () => {
    it('holds a draft touching a banned topic for review, and sends it once approved (edited)', async () => {
      const { id: commentId, payload } = igComment('u_ig_banned', 'Should I buy crypto?');
      await instagram(payload);
      const pending = await socket.waitFor((m) => m.type === 'conversation.reply_pending' && m.message.review_reason === 'banned_topic', 15_000);
      const conversation = await conversationWith('instagram', 'u_ig_banned');
      expect((await read(conversation.id)).conversation.status).toBe('pending_review');
      expect(repliesTo('instagram').some((r) => r.target === commentId)).toBe(false);

      const approved = await api(server).post(`/conversations/${conversation.id}/messages/${pending.message.id}/approve`).set(owner.auth).send({ text: 'I only talk about plants here!' });
      expect(approved.status).toBe(200);
      expect(approved.body.message).toMatchObject({ status: 'queued', text: 'I only talk about plants here!' });
      await messageWhere(conversation.id, (m) => m.id === pending.message.id && m.status === 'sent', 'the approved reply to be sent');
      expect(repliesTo('instagram').filter((r) => r.target === commentId)).toEqual([expect.objectContaining({ text: 'I only talk about plants here!' })]);
      expect((await read(conversation.id)).conversation.status).toBe('open');
      const again = await api(server).post(`/conversations/${conversation.id}/messages/${pending.message.id}/approve`).set(owner.auth).send({});
      expect(again.status).toBe(409);
    });

    it('holds every draft in review mode', async () => {
      expect((await setResponder({ mode: 'review' })).status).toBe(200);
      const dmId = unique('x_dm');
      await x(xDm(dmId, '9002', 'hello there'));
      const conversation = await conversationWith('twitter', '9002');
      const draft = await messageWhere(conversation.id, (m) => m.status === 'pending_review', 'a draft for review');
      expect(draft).toMatchObject({ origin: 'auto', review_reason: 'review_mode', send_at: null });
      expect(repliesTo('twitter').some((r) => r.target === '9002')).toBe(false);
      expect((await conversations({ status: 'pending_review' })).map((c) => c.id)).toContain(conversation.id);
      expect((await setResponder({ mode: 'auto' })).status).toBe(200);
    });

    it('holds an empty draft for a person when the text model cannot write one, instead of retrying it for hours', async () => {
      const asked = openai.requests.length;
      // Both of the adapter's asks come back unusable: a bad_response, which a retry would repeat.
      openai.setMode({ kind: 'malformed', times: 2 });
      try {
        const { id: commentId, payload } = igComment('u_ig_unwritten', 'What soil do roses like?');
        await instagram(payload);
        const pending = await socket.waitFor((m) => m.type === 'conversation.reply_pending' && m.message.review_reason === 'draft_failed', 15_000);
        expect(pending.message).toMatchObject({ origin: 'auto', status: 'pending_review', text: '', send_at: null, error: { code: 'upstream_failed' } });
        expect(openai.requests.length - asked).toBe(2);
        const conversation = await conversationWith('instagram', 'u_ig_unwritten');
        expect((await read(conversation.id)).conversation.status).toBe('pending_review');

        const approve = (body: Json) => api(server).post(`/conversations/${conversation.id}/messages/${pending.message.id}/approve`).set(owner.auth).send(body);
        const empty = await approve({});
        expect(empty.status).toBe(400);
        expect(empty.body).toMatchObject({ code: 'validation_failed', details: [{ field: 'text' }] });
        const written = await approve({ text: 'Roses love rich, well-drained soil.' });
        expect(written.status).toBe(200);
        expect(written.body.message).toMatchObject({ status: 'queued', text: 'Roses love rich, well-drained soil.', review_reason: 'draft_failed', error: null });
        await messageWhere(conversation.id, (m) => m.id === pending.message.id && m.status === 'sent', 'the written reply to be sent');
        expect(repliesTo('instagram').filter((r) => r.target === commentId)).toEqual([expect.objectContaining({ text: 'Roses love rich, well-drained soil.' })]);
        // The model was not asked again: the event was settled, not retried.
        expect(openai.requests.length - asked).toBe(2);
      } finally {
        openai.setMode({ kind: 'ok' });
      }
    });
  });

  describe('people in the conversation', () => {
    it('sends a manual reply at once, exactly once, and audits it', async () => {
      const conversation = await conversationWith('twitter', '9002');
      const before = repliesTo('twitter').filter((r) => r.target === '9002').length;
      const res = await api(server).post(`/conversations/${conversation.id}/reply`).set(owner.auth).send({ text: 'Thanks for writing, friend.' });
      expect(res.status).toBe(201);
      expect(res.body.message).toMatchObject({ origin: 'manual', status: 'queued', channel: 'dm' });
      await messageWhere(conversation.id, (m) => m.id === res.body.message.id && m.status === 'sent', 'the manual reply');
      expect(repliesTo('twitter').filter((r) => r.target === '9002')).toHaveLength(before + 1);
      const audit = await api(server).get(`/organizations/${owner.workspace.id}/audit-log`).query({ action: 'conversation.replied' }).set(owner.auth);
      expect(audit.body.entries[0]).toMatchObject({ target_id: conversation.id });
      const tooLong = await api(server).post(`/conversations/${conversation.id}/reply`).set(owner.auth).send({ text: '' });
      expect(tooLong.status).toBe(400);
    });

    it('pauses a conversation: new messages are stored and not answered until it resumes', async () => {
      const conversation = await conversationWith('instagram', 'u_ig1');
      const paused = await api(server).post(`/conversations/${conversation.id}/pause`).set(owner.auth);
      expect(paused.status).toBe(200);
      expect(paused.body.conversation.status).toBe('paused');
      const { id: commentId, payload } = igComment('u_ig1', 'Anyone there?');
      await instagram(payload);
      await messageWhere(conversation.id, (m) => m.platform_message_id === commentId, 'the message to be stored');
      // The message is stored and announced; the responder looked and drafted nothing.
      await socket.waitFor((m) => m.type === 'conversation.message' && m.message.platform_message_id === commentId);
      const resumed = await api(server).post(`/conversations/${conversation.id}/resume`).set(owner.auth);
      expect(resumed.body.conversation.status).toBe('open');
      const { messages } = await read(conversation.id);
      const stored = messages.find((m) => m.platform_message_id === commentId)!;
      expect(messages.filter((m) => m.reply_to_id === stored.id)).toEqual([]);
      expect(repliesTo('instagram').some((r) => r.target === commentId)).toBe(false);
    });

    it('lets a viewer read a conversation and not act in it', async () => {
      const conversation = await conversationWith('instagram', 'u_ig1');
      expect((await api(server).get(`/conversations/${conversation.id}`).set(asViewer)).status).toBe(200);
      expect((await api(server).get(`/characters/${character}/conversations`).set(asViewer)).status).toBe(200);
      for (const path of ['/pause', '/resume', '/reply']) {
        expect((await api(server).post(`/conversations/${conversation.id}${path}`).set(asViewer).send({ text: 'hi' })).status).toBe(403);
      }
    });

    it('answers another workspace’s conversation as missing', async () => {
      const conversation = await conversationWith('instagram', 'u_ig1');
      const stranger = await registerUser(server);
      for (const [method, path] of [['get', ''], ['post', '/pause'], ['post', '/resume'], ['post', '/reply']] as const) {
        const res = await api(server)[method](`/conversations/${conversation.id}${path}`).set(stranger.auth).send(method === 'post' ? { text: 'hi' } : undefined);
        expect(res.status).toBe(404);
      }
      const { messages } = await read(conversation.id);
      expect((await api(server).post(`/conversations/${conversation.id}/messages/${messages[0].id}/approve`).set(stranger.auth).send({})).status).toBe(404);
      expect((await api(server).get(`/characters/${character}/conversations`).set(stranger.auth)).status).toBe(404);
      expect((await api(server).get(`/conversations/${missingId('cnv')}`).set(owner.auth)).status).toBe(404);
    });
  });

  describe('the hourly cap', () => {
    it('makes the reply past the cap wait for the hour to turn', async () => {
      const sentAuto = (await conversations()).length > 0;
      expect(sentAuto).toBe(true);
      // The character has sent at least two auto replies this hour: a cap of two leaves no room.
      expect((await setResponder({ max_replies_per_hour: 2, response_delay_seconds: 0 })).status).toBe(200);
      const dmId = unique('x_dm');
      await x(xDm(dmId, '9003', 'one more question'));
      const conversation = await conversationWith('twitter', '9003');
      const queued = await messageWhere(conversation.id, (m) => m.origin === 'auto' && m.status === 'queued', 'a reply queued past the cap');
      expect(new Date(queued.send_at).getTime()).toBeGreaterThan(Date.now() + 30 * 60_000);
      expect(repliesTo('twitter').some((r) => r.target === '9003')).toBe(false);
    });
  });
});
