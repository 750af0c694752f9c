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

  /** Installs the router; a second one is a wiring mistake, so it stops the boot. */
  routeThrough(router: ImageRouter): void {
    if (this.router) throw new Error('An image router is already installed');
    this.router = router;
  }

  /** The images and the path that drew them. */
  async draw(req: ImageRequest, signal?: AbortSignal): Promise<RoutedImages> {
    if (this.router) return this.router.generate(req, this.configured, signal);
    return { media: await this.configured.generate(req, signal), route: CLOUD_ROUTE };
  }

  async generate(req: ImageRequest, signal?: AbortSignal): Promise<GeneratedMedia[]> {
    return (await this.draw(req, signal)).media;
  }
}
