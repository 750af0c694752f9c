import { randomBytes } from 'node:crypto';
import type { Platform } from '../../../core/index.js';
import {
  PublishFailure, type AuthorizeParams, type Board, type ConnectedAccount, type PlatformClient, type PlatformTokens, type PublishRequest, type PublishResult,
} from '../application/ports/platform-client.js';

const TOKEN_LIFETIME_MS = 60 * 24 * 3600_000;
const SANDBOX_BOARDS: Board[] = [
  { id: 'sandbox-board-1', name: 'Inspiration', privacy: 'PUBLIC' },
  { id: 'sandbox-board-2', name: 'Outfits', privacy: 'PUBLIC' },
];

const token = (kind: string): string => `sandbox_${kind}_${randomBytes(16).toString('hex')}`;

/**
 * A platform without client credentials (contract §8): consent is a built-in route that returns
 * straight to the callback, and a publish records the post locally with a `sandbox_` remote id.
 * The whole flow works on a fresh machine, offline.
 */
export class SandboxClient implements PlatformClient {
  readonly supportsPkce = true;
  readonly scopes = ['sandbox'];
  readonly listBoards?: (accessToken: string) => Promise<Board[]>;

  constructor(
    readonly platform: Platform,
    /** The service's own consent route for this platform. */
    private readonly consentUrl: string,
    boards: boolean,
  ) {
    if (boards) this.listBoards = () => Promise.resolve(SANDBOX_BOARDS);
  }

  authorizeUrl(params: AuthorizeParams): string {
    const url = new URL(this.consentUrl);
    url.searchParams.set('state', params.state);
    return url.toString();
  }

  exchangeCode(params: { code: string }): Promise<ConnectedAccount> {
    if (!params.code.startsWith('sandbox_')) return Promise.reject(new PublishFailure('token_expired', 'The sandbox consent code is not valid.'));
    return Promise.resolve({ ...this.tokens(), account: { id: `sandbox-${this.platform}`, name: `Sandbox ${this.platform} account` } });
  }

  refresh(refreshToken: string): Promise<PlatformTokens> {
    if (!refreshToken.startsWith('sandbox_')) return Promise.reject(new PublishFailure('token_expired', 'The sandbox refresh token is not valid.'));
    return Promise.resolve(this.tokens());
  }

  revoke(): Promise<void> {
    return Promise.resolve();
  }

  publish(request: PublishRequest): Promise<PublishResult> {
    if (request.media.length === 0) return Promise.reject(new PublishFailure('content_rejected', 'There is no media to post.'));
    return Promise.resolve({ remotePostId: token('post'), remoteUrl: null, mediaUrls: request.media.map((m) => m.url) });
  }

  /** Nothing leaves the service in sandbox mode: an attempt that did not record its post made none. */
  reconcile(): Promise<PublishResult | null> {
    return Promise.resolve(null);
  }

  private tokens(): PlatformTokens {
    return { accessToken: token('at'), refreshToken: token('rt'), expiresAt: new Date(Date.now() + TOKEN_LIFETIME_MS), scopes: this.scopes.slice() };
  }
}
