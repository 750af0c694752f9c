import type { GeneratedMedia, ImageRequest } from './ports/index.js';
import { ImageGenerator } from './ports/index.js';

/** Which path drew a job's images (contract §13: the job's result names it). */
export interface ImageRoute {
  route: 'selfhosted' | 'cloud';
  /** The self-hosted endpoint that drew them; null on the cloud path. */
  endpointId: string | null;
  /** Why a job chosen for self-hosted ended on the cloud path; null otherwise. */
  fallbackReason: string | null;
}

export interface RoutedImages {
  media: GeneratedMedia[];
  route: ImageRoute;
}

export const CLOUD_ROUTE: ImageRoute = { route: 'cloud', endpointId: null, fallbackReason: null };

/**
 * The path as a job's result shows it, truthful about who drew: `provider` is `selfhosted:<endpoint
 * id>` or the configured provider (`replicate`, `local`), and `route` reads `local` rather than
 * `cloud` when the configured provider is the offline renderer.
 */
export interface DrawnRoute {
  route: 'selfhosted' | 'cloud' | 'local';
  provider: string;
  endpointId: string | null;
  fallbackReason: string | null;
}

export function drawnRoute(route: ImageRoute, configuredProvider: string): DrawnRoute {
  if (route.route === 'selfhosted') return { ...route, provider: `selfhosted:${route.endpointId}` };
  return { ...route, route: configuredProvider === 'local' ? 'local' : 'cloud', provider: configuredProvider };
}

/** Decides, for one job, who draws its images; `fallback` is the configured provider (the cloud path). */
export abstract class ImageRouter {
  abstract generate(req: ImageRequest, fallback: ImageGenerator, signal?: AbortSignal): Promise<RoutedImages>;
}

/**
 * The one seam where a job's image generator is chosen: every image job draws through it. Without
 * a router each job goes to the configured provider (Replicate or the local renderer); a router
 * installed at boot (self-hosted GPU routing) decides per job and falls back to that provider.
 */
export class ImageGeneratorSeam extends ImageGenerator {
  private router: ImageRouter | null = null;

  constructor(readonly configured: ImageGenerator) {
    super();
  }

  get provider(): string {
    return this.configured.provider;
  }

  /** Installs the router; a second one is a wiring mistake, so it stops the boot. */
  routeThrough(router: ImageRouter): void {
    if (this.router) throw new Error('An image router is already installed');
    this.router = router;
  }

  /** The images and the path and provider that drew them. */
  async draw(req: ImageRequest, signal?: AbortSignal): Promise<{ media: GeneratedMedia[]; route: DrawnRoute }> {
    const routed = this.router
      ? await this.router.generate(req, this.configured, signal)
      : { media: await this.configured.generate(req, signal), route: CLOUD_ROUTE };
    return { media: routed.media, route: drawnRoute(routed.route, this.configured.provider) };
  }

  async generate(req: ImageRequest, signal?: AbortSignal): Promise<GeneratedMedia[]> {
    return (await this.draw(req, signal)).media;
  }
}
