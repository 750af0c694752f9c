import { describe, expect, it } from '@jest/globals';
import { PublishFailure, type PublishMedia, type PublishRequest, type ReplyRequest } from '../application/ports/platform-client.js';
import { SandboxClient } from './sandbox-client.js';

const media = (kind: 'image' | 'video', durationSeconds?: number): PublishMedia => ({
  url: `http://127.0.0.1/m.${kind === 'image' ? 'png' : 'mp4'}`, contentType: kind === 'image' ? 'image/png' : 'video/mp4', kind,
  ...(durationSeconds !== undefined ? { durationSeconds } : {}), read: () => Promise.resolve(Buffer.alloc(0)),
});

function request(contentType: string, items: PublishMedia[]): PublishRequest {
  return { postId: 'sch_1', accessToken: 'sandbox_at', account: { id: 'a', name: 'a' }, contentType, text: 'hi', title: 'hi', media: items };
}

async function refusal(client: SandboxClient, req: PublishRequest): Promise<PublishFailure> {
  const err = await client.publish(req).then(() => null, (e: unknown) => e);
  if (!(err instanceof PublishFailure)) throw new Error('the sandbox published what it should refuse');
  return err;
}

describe('SandboxClient.publish', () => {
  const tiktok = new SandboxClient('tiktok', 'http://127.0.0.1/consent', false);
  const instagram = new SandboxClient('instagram', 'http://127.0.0.1/consent', false);

  it('refuses a still image as a TikTok short, as TikTok would', async () => {
    const err = await refusal(tiktok, request('short', [media('image')]));
    expect([err.code, err.point, err.message]).toEqual(['content_rejected', 'before', 'TikTok short posts take video only; this one holds a still image.']);
  });

  it('refuses a reel holding an image and a YouTube-length video as an Instagram story', async () => {
    expect((await refusal(instagram, request('reel', [media('image')]))).message).toMatch(/video only/);
    expect((await refusal(instagram, request('story', [media('video', 90)]))).message).toMatch(/at most 60 seconds/);
  });

  it('records what the platform takes', async () => {
    const out = await tiktok.publish(request('short', [media('video', 5)]));
    expect(out.remotePostId).toMatch(/^sandbox_post_/);
    await expect(instagram.publish(request('story', [media('image')]))).resolves.toMatchObject({ mediaUrls: ['http://127.0.0.1/m.png'] });
  });
});

describe('SandboxClient replies', () => {
  const reply = (over: Partial<ReplyRequest> = {}): ReplyRequest => ({
    accessToken: 'sandbox_at', account: { id: 'sandbox-twitter', name: 'x' }, channel: 'comment', target: 'c1', text: 'Thanks!', replyId: 'msg_1', ...over,
  });
  const replyRefusal = async (client: SandboxClient, req: ReplyRequest): Promise<PublishFailure> => {
    const err = await client.sendReply(req).then(() => null, (e: unknown) => e);
    if (!(err instanceof PublishFailure)) throw new Error('the sandbox sent a reply it should refuse');
    return err;
  };
  const x = new SandboxClient('twitter', 'http://127.0.0.1/consent', false);
  const youtube = new SandboxClient('youtube', 'http://127.0.0.1/consent', false);

  it('answers a sandbox id, the same one for the same reply sent again and another for another reply', async () => {
    const first = await x.sendReply(reply());
    expect(first.remoteMessageId).toMatch(/^sandbox_reply_[0-9a-f]{32}$/);
    expect(await x.sendReply(reply())).toEqual(first);
    expect((await x.sendReply(reply({ replyId: 'msg_2' }))).remoteMessageId).not.toBe(first.remoteMessageId);
    expect((await x.sendReply(reply({ channel: 'dm', target: '2244994945' }))).remoteMessageId).toMatch(/^sandbox_dm_/);
  });

  it('refuses what the platform would: an X reply over 280 weighted characters, a YouTube DM, a TikTok reply, an empty text', async () => {
    expect((await replyRefusal(x, reply({ text: '番'.repeat(141) }))).message).toBe('X takes replies of at most 280 weighted characters; this one has 282.');
    expect((await replyRefusal(youtube, reply({ channel: 'dm' }))).code).toBe('content_rejected');
    expect((await replyRefusal(new SandboxClient('tiktok', 'http://127.0.0.1/consent', false), reply())).message).toBe('TikTok comments cannot be answered.');
    expect((await replyRefusal(x, reply({ text: '  ' }))).point).toBe('before');
  });

  it('reads no comments: nobody comments on a sandbox account', async () => {
    await expect(youtube.readComments()).resolves.toEqual([]);
  });
});
