import { expect } from '@jest/globals';
import { createHash, randomBytes } from 'node:crypto';
import type { FakePlatform, RecordedRequest } from '../../../../../test/fakes/platforms/fake-platform.js';
import { PublishFailure, type PlatformClientOptions, type PublishMedia, type PublishRequest, type ReconcileQuery } from '../../application/ports/platform-client.js';

/** Where a platform fake serves each address an adapter is configured with (its `*_PATHS`). */
export interface FakePaths {
  apiUrl: string;
  authorizeUrl: string;
  tokenUrl: string;
  uploadUrl: string;
}

/**
 * Adapter options aimed at a started fake: the client credentials the fake accepts, its addresses
 * and time budgets short enough for tests; `over` changes any of them (a short `timeoutMs`, ...).
 */
export function fakeClientOptions(fake: FakePlatform, paths: FakePaths, over: Partial<PlatformClientOptions> = {}): PlatformClientOptions {
  return {
    clientId: fake.options.clientId,
    clientSecret: fake.options.clientSecret,
    apiUrl: fake.url + paths.apiUrl,
    authorizeUrl: fake.url + paths.authorizeUrl,
    tokenUrl: fake.url + paths.tokenUrl,
    uploadUrl: fake.url + paths.uploadUrl,
    timeoutMs: 2_000,
    pollIntervalMs: 5,
    pollTimeoutMs: 2_000,
    ...over,
  };
}

/** Follows a fake's consent redirect the way a browser would and returns the code it carries. */
export async function consentCode(authorizeUrl: string): Promise<string> {
  const res = await fetch(authorizeUrl, { redirect: 'manual' });
  expect(res.status).toBe(302);
  return new URL(res.headers.get('location')!).searchParams.get('code')!;
}

/** A PKCE verifier (random unless given) and its S256 challenge. */
export function pkce(verifier = randomBytes(32).toString('base64url')): { verifier: string; challenge: string } {
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** The `PublishFailure` a promise rejects with; fails the test when it resolves or rejects with anything else. */
export async function failure(promise: Promise<unknown>): Promise<PublishFailure> {
  const err = await promise.then(
    () => new Error('expected a PublishFailure'),
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(PublishFailure);
  return err as PublishFailure;
}

/**
 * A photo or video to publish from `url` (JPEG or MP4 unless told). Give `bytes` for a platform
 * that uploads them (X, YouTube); without, `read()` rejects: a platform that pulls by URL never reads.
 */
export function mediaAt(kind: PublishMedia['kind'], url: string, { contentType, bytes }: { contentType?: string; bytes?: Buffer } = {}): PublishMedia {
  return {
    url,
    kind,
    contentType: contentType ?? (kind === 'video' ? 'video/mp4' : 'image/jpeg'),
    read: () => (bytes ? Promise.resolve(bytes) : Promise.reject(new Error(`${url} is pulled by URL; its bytes are never read`))),
  };
}

/**
 * What reconcile is asked after `request` went unanswered: the same token, account, kind of post,
 * text, title and board, anything posted from 5 s ago on, no remote id known yet.
 */
export function reconcileQueryFor(request: PublishRequest, over: Partial<ReconcileQuery> = {}): ReconcileQuery {
  return {
    accessToken: request.accessToken,
    contentType: request.contentType,
    account: request.account,
    text: request.text,
    title: request.title,
    since: new Date(Date.now() - 5_000),
    handle: null,
    ...(request.boardId !== undefined && { boardId: request.boardId }),
    knownRemoteIds: new Set<string>(),
    ...over,
  };
}

/** The form fields of a recorded `application/x-www-form-urlencoded` request. */
export function formOf(request: RecordedRequest): Record<string, string> {
  return Object.fromEntries(new URLSearchParams(request.body.toString()));
}
