import type { GeneratedMedia, ImageRequest } from '../../../generation/index.js';

import type { EndpointKind } from '../../domain/endpoint.js';

export { ENDPOINT_KINDS, type EndpointKind } from '../../domain/endpoint.js';

/** One self-hosted endpoint as a backend sees it: where it is and how to authenticate. */
export interface GpuTarget {
  id: string;
  kind: EndpointKind;
  /** Base URL, no trailing slash (`http://gpu-1:7860`). */
  url: string;
  /**
   * The endpoint's secret, decrypted. A1111/Forge: `user:password` for HTTP Basic auth (`--api-auth`);
   * ComfyUI: a bearer token for the proxy in front of it. Null: no auth.
   */
  apiKey: string | null;
  /** ComfyUI only: the admin's API-format workflow overriding the built-in one; null for the default. */
  workflow: Record<string, unknown> | null;
}

/**
 * What a self-hosted backend draws: the cloud request without the parts only the cloud
 * understands (the character brief, already written into the prompt; the LoRA). `initImage`, when
 * given, is already fitted to the size; `strength` is the denoising of image-to-image, 0-1.
 */
export type GpuImageRequest = Pick<ImageRequest, 'prompt' | 'negativePrompt' | 'width' | 'height' | 'count' | 'seed' | 'initImage' | 'strength'>;

/**
 * A self-hosted image server's protocol (AUTOMATIC1111/Forge, ComfyUI). Failures are
 * `OutboundError`s from the outbound layer (timeout, network, http with its status, bad_response),
 * so the router can tell an endpoint's fault (counted against its circuit) from a bad request.
 * Neither method retries: the router owns retries, budget and fallback.
 */
export abstract class GpuBackend {
  abstract readonly kind: EndpointKind;
  /** Draws `count` images; `signal` aborts the request in flight (the router's budget). */
  abstract generate(target: GpuTarget, req: GpuImageRequest, signal: AbortSignal): Promise<GeneratedMedia[]>;
  /** Resolves when the server answers its health route; throws an `OutboundError` when it does not. */
  abstract probe(target: GpuTarget, signal: AbortSignal): Promise<void>;
}
