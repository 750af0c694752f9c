import { createServer, type AddressInfo } from 'node:net';

/**
 * Ports below Linux's ephemeral range (32768-60999): the kernel never hands them out as the source
 * port of an outgoing connection or to a `listen(0)`, so a probed one stays free until it is bound.
 */
const PROBED_PORTS = { from: 20_000, to: 32_000 };

/** A port nobody listens on right now, from PROBED_PORTS (a kernel-chosen one if none answers). */
export async function freePort(): Promise<number> {
  for (let i = 0; i < 20; i++) {
    const port = PROBED_PORTS.from + Math.floor(Math.random() * (PROBED_PORTS.to - PROBED_PORTS.from));
    if ((await listenOnce(port)) !== null) return port;
  }
  const chosen = await listenOnce(0);
  if (chosen === null) throw new Error('no free loopback port');
  return chosen;
}

/** Binds and releases `port` on loopback; the port bound, or null when it is taken. */
async function listenOnce(port: number): Promise<number | null> {
  const probe = createServer();
  const bound = await new Promise<boolean>((r) => {
    probe.once('error', () => r(false));
    probe.listen(port, '127.0.0.1', () => r(true));
  });
  if (!bound) return null;
  const { port: actual } = probe.address() as AddressInfo;
  await new Promise<void>((r) => probe.close(() => r()));
  return actual;
}
