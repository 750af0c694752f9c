import type { GeneratedMedia, ImageRequest } from './ports/index.js';
import { ImageGenerator } from './ports/index.js';

/** Decides, for one job, who draws its images; `fallback` is the configured provider (the cloud path). */
export abstract class ImageRouter {
  abstract generate(req: ImageRequest, fallback: ImageGenerator, signal?: AbortSignal): Promise<GeneratedMedia[]>;
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

  generate(req: ImageRequest, signal?: AbortSignal): Promise<GeneratedMedia[]> {
    return this.router ? this.router.generate(req, this.configured, signal) : this.configured.generate(req, signal);
  }
}
