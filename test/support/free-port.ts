import { createServer } from 'node:net';

/**
 * Ports below Linux's ephemeral range (32768-60999): the kernel never hands them out as the source
 * port of an outgoing connection or to a `listen(0)`, so a probed one stays free until it is bound.
 */
const PROBED_PORTS = { from: 20_000, to: 32_000 };

/** A port nobody listens on right now, from PROBED_PORTS. */
export async function freePort(): Promise<number> {
  for (let i = 0; i < 20; i++) {
    const port = PROBED_PORTS.from + Math.floor(Math.random() * (PROBED_PORTS.to - PROBED_PORTS.from));
    if (await isFree(port)) return port;
  }
  throw new Error(`no free loopback port in ${PROBED_PORTS.from}-${PROBED_PORTS.to} after 20 tries`);
}

/** Whether `port` can be bound on loopback now (it is released again at once). */
async function isFree(port: number): Promise<boolean> {
  const probe = createServer();
  const bound = await new Promise<boolean>((r) => {
    probe.once('error', () => r(false));
    probe.listen(port, '127.0.0.1', () => r(true));
  });
  if (bound) await new Promise<void>((r) => probe.close(() => r()));
  return bound;
}
