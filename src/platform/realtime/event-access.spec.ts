import { describe, expect, it } from '@jest/globals';
import type { Caller, Plan, Scope } from '../../core/index.js';
import { socketAccess } from './event-access.js';

const key = (scopes: Scope[], plan: Plan = 'agency'): Caller => ({
  kind: 'api_key', userId: 'user_A', workspaceId: 'ws_A', role: 'user', workspaceRole: 'owner', plan, scopes, apiKeyId: 'key_A',
});
const events = (caller: Caller) => {
  const access = socketAccess(caller);
  return access.ok ? [...access.events].sort() : access.code;
};

describe('socketAccess: the events a socket may receive', () => {
  it('gives a session every event of its workspace, whatever its plan', () => {
    const session: Caller = { kind: 'session', userId: 'user_A', workspaceId: 'ws_A', role: 'user', workspaceRole: 'owner', plan: 'starter', scopes: [], sessionId: 'ses_A' };
    expect(events(session)).toEqual(['content.updated', 'conversation.message', 'conversation.reply_pending', 'credits.low', 'job.completed', 'job.failed', 'job.progress', 'post.updated', 'webhook.endpoint_disabled']);
  });

  it.each<[Scope[], string[] | string]>([
    [['content:read'], ['content.updated', 'job.completed', 'job.failed', 'job.progress']],
    [['content:generate'], ['job.completed', 'job.failed', 'job.progress']],
    [['content:publish'], ['post.updated']],
    [['content:generate', 'content:publish'], ['job.completed', 'job.failed', 'job.progress', 'post.updated']],
    [['content:read', 'content:generate', 'content:publish', 'credits:read'], ['content.updated', 'credits.low', 'job.completed', 'job.failed', 'job.progress', 'post.updated']],
    [['credits:read'], ['credits.low']],
    [['characters:read', 'characters:write', 'credits:read'], ['credits.low']],
    [['characters:read', 'characters:write'], 'insufficient_scope'],
    [[], 'insufficient_scope'],
  ])('gives an API key scoped %j the events its scopes can read over HTTP: %j', (scopes, expected) => {
    expect(events(key(scopes))).toEqual(expected);
  });

  it.each<Plan>(['starter', 'pro'])('refuses an API key of a %s workspace with plan_required, as /public/* does', (plan) => {
    expect(events(key(['content:read'], plan))).toBe('plan_required');
  });
});
