import { describe, expect, it } from '@jest/globals';
import { CLOUD_ROUTE, ImageGeneratorSeam, ImageRouter, type RoutedImages } from './image-routing.js';
import { ImageGenerator, type GeneratedMedia, type ImageRequest } from './ports/index.js';

const png = (tag: string): GeneratedMedia => ({ bytes: Buffer.from(tag), contentType: 'image/png' });
const request = { jobId: 'job_1', workspaceId: 'ws_1', prompt: 'a beach', width: 8, height: 8, count: 1 } as ImageRequest;

class Named extends ImageGenerator {
  constructor(
    private readonly tag: string,
    readonly provider = 'replicate',
  ) {
    super();
  }
  generate(): Promise<GeneratedMedia[]> {
    return Promise.resolve([png(this.tag)]);
  }
}

describe('ImageGeneratorSeam', () => {
  it('draws with the configured provider while no router is installed', async () => {
    const seam = new ImageGeneratorSeam(new Named('cloud'));
    expect((await seam.generate(request))[0].bytes.toString()).toBe('cloud');
    expect((await seam.draw(request)).route).toEqual({ ...CLOUD_ROUTE, provider: 'replicate' });
  });

  it('names the offline renderer as the provider and its route local, never cloud', async () => {
    const seam = new ImageGeneratorSeam(new Named('offline', 'local'));
    expect((await seam.draw(request)).route).toEqual({ route: 'local', provider: 'local', endpointId: null, fallbackReason: null });
  });

  it('lets an installed router choose per job, with the configured provider as its fallback', async () => {
    const seam = new ImageGeneratorSeam(new Named('cloud'));
    const seen: string[] = [];
    class EvenJobsElsewhere extends ImageRouter {
      async generate(req: ImageRequest, fallback: ImageGenerator): Promise<RoutedImages> {
        seen.push(req.jobId);
        if (req.jobId.endsWith('2')) return { media: [png('gpu')], route: { route: 'selfhosted', endpointId: 'ep_1', fallbackReason: null } };
        return { media: await fallback.generate(req), route: CLOUD_ROUTE };
      }
    }
    seam.routeThrough(new EvenJobsElsewhere());
    const gpu = await seam.draw({ ...request, jobId: 'job_2' });
    expect(gpu.media[0].bytes.toString()).toBe('gpu');
    expect(gpu.route).toEqual({ route: 'selfhosted', provider: 'selfhosted:ep_1', endpointId: 'ep_1', fallbackReason: null });
    expect((await seam.generate({ ...request, jobId: 'job_3' }))[0].bytes.toString()).toBe('cloud');
    expect(seen).toEqual(['job_2', 'job_3']);
  });

  it('refuses a second router', () => {
    const seam = new ImageGeneratorSeam(new Named('cloud'));
    class Passthrough extends ImageRouter {
      async generate(req: ImageRequest, fallback: ImageGenerator): Promise<RoutedImages> {
        return { media: await fallback.generate(req), route: CLOUD_ROUTE };
      }
    }
    seam.routeThrough(new Passthrough());
    expect(() => seam.routeThrough(new Passthrough())).toThrow(/already installed/);
  });
});
