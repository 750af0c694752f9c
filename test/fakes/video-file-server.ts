import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** An ISO base media file: an `ftyp` box with `brand`, then a `free` box padding it to `size` bytes. */
function isoMedia(brand: string, size: number): Buffer {
  const ftyp = Buffer.alloc(24);
  ftyp.writeUInt32BE(24, 0);
  ftyp.write('ftyp', 4, 'latin1');
  ftyp.write(brand, 8, 'latin1');
  ftyp.write(`${brand}mp41`, 16, 'latin1');
  const freeSize = Math.max(8, size - ftyp.length);
  const free = Buffer.alloc(freeSize, 0x2a);
  free.writeUInt32BE(freeSize, 0);
  free.write('free', 4, 'latin1');
  return Buffer.concat([ftyp, free]);
}

/** Leading bytes of an MP4 file (brand `isom`), padded to `size`. */
export function mp4Bytes(size = 4096): Buffer {
  return isoMedia('isom', size);
}

/** Leading bytes of a QuickTime file (brand `qt  `), padded to `size`. */
export function movBytes(size = 4096): Buffer {
  return isoMedia('qt  ', size);
}

/** An EBML header with DocType `webm`, then filler up to `size`. */
export function webmBytes(size = 4096): Buffer {
  const body = Buffer.concat([
    Buffer.from([0x42, 0x86, 0x81, 0x01]), // EBMLVersion 1
    Buffer.from([0x42, 0xf7, 0x81, 0x01]), // EBMLReadVersion 1
    Buffer.from([0x42, 0x82, 0x84]), // DocType, 4 bytes
    Buffer.from('webm', 'latin1'),
    Buffer.from([0x42, 0x87, 0x81, 0x04]), // DocTypeVersion 4
  ]);
  const header = Buffer.concat([Buffer.from([0x1a, 0x45, 0xdf, 0xa3, 0x80 | body.length]), body]);
  return Buffer.concat([header, Buffer.alloc(Math.max(0, size - header.length), 0x2a)]);
}

export interface ServedFile {
  body: Buffer;
  contentType: string;
}

export interface FakeVideoFileServer {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  port: number;
  /** The absolute URL of `path` on this server. */
  url(path: string): string;
  /** Paths requested, in order. */
  requests: string[];
  /** What each path answers; anything else is 404. Tests may add or replace files. */
  files: Map<string, ServedFile>;
  close(): Promise<void>;
}

/**
 * A tiny static file server on 127.0.0.1 serving test videos by path: `/clip.mp4`, `/clip.mov`,
 * `/clip.webm`, and `/page.html`, which is not a video although a client may claim it is.
 */
export async function startVideoFileServer(): Promise<FakeVideoFileServer> {
  const requests: string[] = [];
  const files = new Map<string, ServedFile>([
    ['/clip.mp4', { body: mp4Bytes(), contentType: 'video/mp4' }],
    ['/clip.mov', { body: movBytes(), contentType: 'video/quicktime' }],
    ['/clip.webm', { body: webmBytes(), contentType: 'video/webm' }],
    ['/page.html', { body: Buffer.from('<!doctype html><title>not a video</title>'), contentType: 'text/html' }],
  ]);
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://fake').pathname;
    requests.push(path);
    const file = req.method === 'GET' ? files.get(path) : undefined;
    if (!file) {
      res.writeHead(404, { 'Content-Type': 'text/plain' });
      res.end('not found');
      return;
    }
    res.writeHead(200, { 'Content-Type': file.contentType, 'Content-Length': String(file.body.length) });
    res.end(file.body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    origin,
    port,
    url: (path: string) => `${origin}${path}`,
    requests,
    files,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
