import { createSocket, type RemoteInfo } from 'node:dgram';
import dnsPacket, { type Answer, type Packet, type Question } from 'dns-packet';

/** RFC 1035 §4.1.1 response codes the fake answers with. */
const NOERROR = 0;
const SERVFAIL = 2;
const NXDOMAIN = 3;
const FORMERR = 1;

export interface DnsQuerySeen {
  name: string;
  type: string;
}

/**
 * A small authoritative DNS server on 127.0.0.1 over UDP, for the resolver adapter to ask in tests.
 * It holds TXT records the test sets; other names are NXDOMAIN, a known name asked for another type
 * is NOERROR with no answer (NODATA), as a real zone answers. `failing` makes it answer SERVFAIL.
 * Names compare case-insensitively (RFC 4343) and the question is echoed as asked.
 */
export interface FakeDns {
  /** `127.0.0.1:<port>`, the form `DNS_RESOLVER_SERVERS` takes. */
  address: string;
  queries: DnsQuerySeen[];
  setTxt(name: string, values: string[]): void;
  remove(name: string): void;
  setFailing(failing: boolean): void;
  close(): Promise<void>;
}

/** Splits a long value into the 255-byte strings a TXT record is made of (RFC 1035 §3.3.14). */
function chunks(value: string): Buffer[] {
  const bytes = Buffer.from(value, 'utf8');
  const parts: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += 255) parts.push(bytes.subarray(i, i + 255));
  return parts.length > 0 ? parts : [Buffer.alloc(0)];
}

export async function startFakeDns(): Promise<FakeDns> {
  const zone = new Map<string, string[]>();
  const queries: DnsQuerySeen[] = [];
  let failing = false;
  const socket = createSocket('udp4');

  const reply = (query: Packet, rcode: number, answers: Answer[], to: RemoteInfo): void => {
    const recursionDesired = (query.flags ?? 0) & dnsPacket.RECURSION_DESIRED;
    const flags = dnsPacket.AUTHORITATIVE_ANSWER | recursionDesired | rcode;
    const out = dnsPacket.encode({ type: 'response', id: query.id, flags, questions: query.questions, answers });
    socket.send(out, to.port, to.address);
  };

  socket.on('message', (msg, from) => {
    let query: Packet;
    try {
      query = dnsPacket.decode(msg);
    } catch {
      return; // Not DNS: a real server drops it too.
    }
    const question: Question | undefined = query.questions?.[0];
    if (query.type !== 'query' || !question || query.questions!.length !== 1) return reply({ ...query, questions: query.questions ?? [] }, FORMERR, [], from);
    queries.push({ name: question.name, type: question.type });
    if (failing) return reply(query, SERVFAIL, [], from);
    const values = zone.get(question.name.toLowerCase());
    if (!values) return reply(query, NXDOMAIN, [], from);
    if (question.type !== 'TXT') return reply(query, NOERROR, [], from);
    const answers: Answer[] = values.map((v) => ({ type: 'TXT', name: question.name, class: 'IN', ttl: 0, data: chunks(v) }));
    reply(query, NOERROR, answers, from);
  });

  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(0, '127.0.0.1', () => resolve());
  });
  const { port } = socket.address();
  return {
    address: `127.0.0.1:${port}`,
    queries,
    setTxt: (name, values) => void zone.set(name.toLowerCase(), values),
    remove: (name) => void zone.delete(name.toLowerCase()),
    setFailing: (f) => void (failing = f),
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
