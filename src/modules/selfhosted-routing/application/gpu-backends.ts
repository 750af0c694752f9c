import { GpuBackend, type EndpointKind } from './ports/gpu-backend.js';

/** One backend per endpoint kind; a kind without one, or with two, is a wiring mistake that stops the boot. */
export class GpuBackends {
  private readonly byKind = new Map<EndpointKind, GpuBackend>();

  constructor(backends: GpuBackend[]) {
    for (const b of backends) {
      if (this.byKind.has(b.kind)) throw new Error(`Two GPU backends for kind ${b.kind}`);
      this.byKind.set(b.kind, b);
    }
  }

  for(kind: EndpointKind): GpuBackend {
    const backend = this.byKind.get(kind);
    if (!backend) throw new Error(`No GPU backend for kind ${kind}`);
    return backend;
  }
}
