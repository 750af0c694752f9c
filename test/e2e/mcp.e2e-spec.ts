import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { api, connectSandbox, grantCredits, loginAdmin, missingId, registerUser, setPlan, type TestUser } from '../helpers/api.js';
import { E2E_MODE } from '../helpers/env.js';
import { createBacking, startServer, startWorker, waitFor, type Backing, type RunningProcess, type TestServer } from '../helpers/server.js';

type Json = Record<string, any>;
interface ToolAnswer {
  content: Array<{ type: string; text: string }>;
  structuredContent?: Json;
  isError?: boolean;
}

const ENV = { AUTH_RATE_LIMIT_PER_MINUTE: '1000', RATE_LIMIT_MULTIPLIER: '50' };
const VERSION = (JSON.parse(readFileSync(resolve(import.meta.dirname, '../../package.json'), 'utf8')) as { version: string }).version;
const TOOLS = ['list_characters', 'create_character', 'generate_content', 'get_content', 'get_job', 'publish', 'get_credits'];
const ALL_SCOPES = ['characters:read', 'characters:write', 'content:generate', 'content:read', 'content:publish', 'credits:read'];
const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });
/** An error body without its request id, which differs per request. */
const withoutRequestId = ({ request_id: _id, ...rest }: Json): Json => rest;

describe('the MCP server over the public API', () => {
  let backing: Backing;
  let server: TestServer;
  let worker: RunningProcess | undefined;
  let admin: { Authorization: string };
  let agency: TestUser;
  let fullKey: string;
  const clients: Client[] = [];

  const createKey = async (user: TestUser, scopes: string[]): Promise<string> => {
    const res = await api(server).post('/api-keys').set(user.auth).send({ name: `mcp ${scopes.length} scopes`, scopes });
    if (res.status !== 201) throw new Error(`create key failed: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.key as string;
  };
  const agencyUser = async (): Promise<TestUser> => {
    const user = await registerUser(server);
    await setPlan(server, admin, user.workspace.id, 'agency');
    return user;
  };
  /** The SDK's own client over Streamable HTTP, with the API key in every request's headers. */
  const connect = async (key: string): Promise<Client> => {
    const client = new Client({ name: 'e2e-agent', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: bearer(key) } }));
    clients.push(client);
    return client;
  };
  const call = async (client: Client, name: string, args: Json = {}): Promise<ToolAnswer> => (await client.callTool({ name, arguments: args })) as ToolAnswer;
  const ok = (answer: ToolAnswer): Json => {
    if (answer.isError) throw new Error(`tool failed: ${answer.content[0]?.text}`);
    expect(answer.content).toEqual([{ type: 'text', text: JSON.stringify(answer.structuredContent) }]);
    return answer.structuredContent!;
  };
  const refusal = (answer: ToolAnswer): Json => {
    expect(answer.isError).toBe(true);
    expect(answer.structuredContent).toBeUndefined();
    expect(answer.content).toHaveLength(1);
    return JSON.parse(answer.content[0].text) as Json;
  };
  /** A JSON-RPC message posted by hand, as an agent without the SDK would. */
  const rawPost = (headers: Record<string, string>, message: Json = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }) =>
    api(server).post('/mcp').set({ Accept: 'application/json, text/event-stream', ...headers }).send(message);

  beforeAll(async () => {
    backing = await createBacking();
    server = await startServer(backing, ENV);
    if (E2E_MODE === 'services') worker = await startWorker(backing, ENV);
    admin = await loginAdmin(server);
    agency = await agencyUser();
    await grantCredits(server, admin, agency.workspace.id, 500);
    await connectSandbox(server, agency, 'instagram');
    fullKey = await createKey(agency, ALL_SCOPES);
  }, 90_000);
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await Promise.all([server?.stop(), worker?.stop()]);
    await backing?.cleanup();
  });

  it('initializes as persona-studio at the package version, offering tools', async () => {
    const client = await connect(fullKey);
    expect(client.getServerVersion()).toEqual({ name: 'persona-studio', version: VERSION });
    expect(client.getServerCapabilities()?.tools).toEqual({});
  });

  it('lists the public operations as tools whose input schemas are the routes\' own, self-contained and closed', async () => {
    const { tools } = await (await connect(fullKey)).listTools();
    expect(tools.map((t) => t.name)).toEqual(TOOLS);
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    for (const tool of tools) {
      expect([tool.name, tool.description]).toEqual([tool.name, expect.stringMatching(/scope [a-z]+:[a-z]+/)]);
      expect([tool.name, tool.inputSchema.type, tool.inputSchema.additionalProperties]).toEqual([tool.name, 'object', false]);
      expect(JSON.stringify(tool.inputSchema)).not.toMatch(/\$ref|nullable/);
    }
    expect(byName.create_character.inputSchema.required).toEqual(expect.arrayContaining(['name', 'niche']));
    // A nested DTO is inlined and closed like the body it sits in.
    expect(byName.create_character.inputSchema.properties!.settings).toMatchObject({ type: 'object', additionalProperties: false });
    expect(byName.generate_content.inputSchema.required).toEqual(['character_id', 'platform', 'prompt']);
    expect(byName.get_content.inputSchema).toEqual({ type: 'object', properties: { id: { type: 'string' } }, required: ['id'], additionalProperties: false });
    expect(Object.keys(byName.list_characters.inputSchema.properties!).sort()).toEqual(['niche', 'page', 'page_size', 'q']);
    // The Idempotency-Key header is not an argument.
    expect(Object.keys(byName.publish.inputSchema.properties!).sort()).toEqual(['content_id', 'platform']);
    expect(byName.get_credits.inputSchema).toEqual({ type: 'object', properties: {}, additionalProperties: false });
  });

  it('calls each tool: create and list characters, generate, read the content until approved, publish, read credits; as REST answers', async () => {
    const client = await connect(fullKey);
    const created = ok(await call(client, 'create_character', { name: 'Agent Nova', niche: 'travel', settings: { autopilot: true } }));
    expect(created.character).toMatchObject({ id: expect.stringMatching(/^char_/), name: 'Agent Nova', niche: 'travel' });
    const characterId = created.character.id as string;

    const listed = ok(await call(client, 'list_characters', { niche: 'travel', page_size: 5 }));
    expect(listed.characters.map((c: Json) => c.id)).toEqual([characterId]);
    expect(listed).toMatchObject({ page: 1, page_size: 5, total: 1 });
    const rest = await api(server).get('/public/characters?niche=travel&page_size=5').set(bearer(fullKey));
    expect(rest.body.characters.map((c: Json) => c.id)).toEqual([characterId]);

    const before = ok(await call(client, 'get_credits'));
    expect(before).toEqual((await api(server).get('/public/credits').set(bearer(fullKey))).body);

    const generated = ok(await call(client, 'generate_content', { character_id: characterId, platform: 'instagram', prompt: 'Harbour at dawn' }));
    expect(generated.item).toMatchObject({ id: expect.stringMatching(/^cnt_/), character_id: characterId });
    expect(generated.job).toMatchObject({ id: expect.stringMatching(/^job_/) });
    const contentId = generated.item.id as string;
    expect(ok(await call(client, 'get_credits')).balance).toBeLessThan(before.balance);

    // The job, followed through its own tool until it ends, reads as GET /public/jobs/{id} (and /jobs/{id}) does.
    const jobId = generated.job.id as string;
    const done = await waitFor(async () => {
      const { job } = ok(await call(client, 'get_job', { id: jobId }));
      return job.status === 'completed' ? job : undefined;
    }, 40_000, 'the generation job to complete');
    expect(done).toEqual((await api(server).get(`/public/jobs/${jobId}`).set(bearer(fullKey))).body.job);
    expect(done).toEqual((await api(server).get(`/jobs/${jobId}`).set(agency.auth)).body.job);

    // The job's progress shows on the item: read it through the tool until the autopilot approves it.
    const approved = await waitFor(async () => {
      const { item } = ok(await call(client, 'get_content', { id: contentId }));
      return item.status === 'approved' ? item : undefined;
    }, 40_000, 'the generated item to be approved');
    expect(approved).toEqual((await api(server).get(`/public/content/${contentId}`).set(bearer(fullKey))).body.item);

    const published = ok(await call(client, 'publish', { content_id: contentId, platform: 'instagram' }));
    expect(published.scheduled_post).toMatchObject({ content_id: contentId, platform: 'instagram', status: 'published', remote_post_id: expect.stringMatching(/^sandbox_/) });
    expect(ok(await call(client, 'get_content', { id: contentId })).item.status).toBe('published');
  }, 90_000);

  it('refuses a tool whose route needs a scope the key lacks, exactly as the REST route does', async () => {
    const readOnly = await createKey(agency, ['credits:read']);
    const client = await connect(readOnly);
    const viaMcp = refusal(await call(client, 'list_characters'));
    const viaRest = await api(server).get('/public/characters').set(bearer(readOnly));
    expect(viaRest.status).toBe(403);
    expect(viaMcp).toMatchObject({ statusCode: 403, code: 'insufficient_scope', details: { required: ['characters:read'] } });
    expect(withoutRequestId(viaMcp)).toEqual(withoutRequestId(viaRest.body));
    // The route's request id is the MCP request's, with the JSON-RPC id after it.
    expect(viaMcp.request_id).toMatch(/^req_[0-9A-Z]{26}\.\d+$/);
    // The scope the key has still works over the same connection.
    expect(ok(await call(client, 'get_credits'))).toMatchObject({ plan: 'agency' });
  });

  it('refuses generation without credits with insufficient_credits, as REST does', async () => {
    const broke = await agencyUser();
    const balance = (await api(server).get('/billing/credits').set(broke.auth)).body.balance as number;
    if (balance > 0) await grantCredits(server, admin, broke.workspace.id, -balance);
    const key = await createKey(broke, ALL_SCOPES);
    const client = await connect(key);
    const characterId = ok(await call(client, 'create_character', { name: 'Broke', niche: 'food' })).character.id as string;
    const args = { character_id: characterId, platform: 'instagram', prompt: 'Noodles' };
    const viaMcp = refusal(await call(client, 'generate_content', args));
    const viaRest = await api(server).post('/public/generate').set(bearer(key)).send(args);
    expect([viaRest.status, viaMcp.code]).toEqual([402, 'insufficient_credits']);
    expect(withoutRequestId(viaMcp)).toEqual(withoutRequestId(viaRest.body));
  });

  it('answers another workspace\'s or a missing content id with the route\'s 404', async () => {
    const client = await connect(fullKey);
    const viaMcp = refusal(await call(client, 'get_content', { id: missingId('cnt') }));
    const viaRest = await api(server).get(`/public/content/${missingId('cnt')}`).set(bearer(fullKey));
    expect([viaRest.status, viaMcp.code]).toEqual([404, 'not_found']);
    expect(withoutRequestId(viaMcp)).toEqual(withoutRequestId(viaRest.body));
  });

  it('answers another workspace\'s job id with the route\'s 404, and a key without content:read with insufficient_scope', async () => {
    const other = await agencyUser();
    await grantCredits(server, admin, other.workspace.id, 50);
    const character = await api(server).post('/characters').set(other.auth).send({ name: 'Other', niche: 'food' });
    const order = await api(server).post('/content/generate').set(other.auth).send({ character_id: character.body.character.id, platform: 'instagram', prompt: 'Soup' });
    expect(order.status).toBe(201);
    const theirJob = order.body.job.id as string;
    const client = await connect(fullKey);
    const viaMcp = refusal(await call(client, 'get_job', { id: theirJob }));
    const viaRest = await api(server).get(`/public/jobs/${theirJob}`).set(bearer(fullKey));
    expect([viaRest.status, viaMcp.code]).toEqual([404, 'not_found']);
    expect(withoutRequestId(viaMcp)).toEqual(withoutRequestId(viaRest.body));
    const creditsOnly = await connect(await createKey(agency, ['credits:read']));
    expect(refusal(await call(creditsOnly, 'get_job', { id: theirJob })).code).toBe('insufficient_scope');
    expect((await api(server).get(`/public/jobs/${theirJob}`).set(agency.auth)).status).toBe(401);
  });

  it('refuses arguments the input schema refuses before calling the route, and an unknown tool as a JSON-RPC error', async () => {
    const client = await connect(fullKey);
    const before = ok(await call(client, 'get_credits')).balance as number;
    const invalid = refusal(await call(client, 'generate_content', { character_id: 'char_x', platform: 'myspace', colour: 'red' }));
    expect(invalid).toMatchObject({ statusCode: 400, code: 'validation_failed', request_id: expect.stringMatching(/^req_/) });
    expect(invalid.details).toEqual(expect.arrayContaining([
      { field: 'prompt', message: 'prompt is required' },
      { field: 'colour', message: 'property colour should not exist' },
      { field: 'platform', message: expect.stringContaining('allowed values') },
    ]));
    expect(refusal(await call(client, 'get_content', {})).details).toEqual([{ field: 'id', message: 'id is required' }]);
    expect(ok(await call(client, 'get_credits')).balance).toBe(before);
    await expect(client.callTool({ name: 'delete_everything', arguments: {} })).rejects.toMatchObject({ code: -32602, message: expect.stringContaining('delete_everything') });
  });

  it('authenticates every message: no key is 401, a session token is api_key_required, a downgraded workspace\'s key is plan_required', async () => {
    const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };
    const none = await rawPost({}, initialize);
    expect([none.status, none.body.code]).toEqual([401, 'unauthorized']);
    expect((await rawPost({})).status).toBe(401);
    const bogus = await rawPost(bearer('psk_not-a-real-key'));
    expect([bogus.status, bogus.body.code]).toEqual([401, 'unauthorized']);
    const session = await rawPost(agency.auth);
    expect([session.status, session.body.code]).toEqual([401, 'api_key_required']);
    await expect(connect('psk_not-a-real-key')).rejects.toThrow(/401/);

    const downgraded = await agencyUser();
    const key = await createKey(downgraded, ['credits:read']);
    expect((await rawPost(bearer(key))).status).toBe(200);
    await setPlan(server, admin, downgraded.workspace.id, 'pro');
    const refused = await rawPost(bearer(key));
    const rest = await api(server).get('/public/credits').set(bearer(key));
    expect([refused.status, refused.body.code]).toEqual([403, 'plan_required']);
    expect(withoutRequestId(refused.body)).toEqual(withoutRequestId(rest.body));
  });

  it('counts against the workspace\'s rate limit: each MCP message once, a tool call\'s route request not again', async () => {
    const user = await agencyUser();
    const key = await createKey(user, ['credits:read']);
    const client = await connect(key);
    /** The remaining requests and the seconds to the window's end, from a REST call's `RateLimit` header. */
    const budget = async (): Promise<{ r: number; t: number }> => {
      const res = await api(server).get('/public/credits').set(bearer(key));
      const [, r, t] = /;r=(\d+);t=(\d+)$/.exec(res.headers.ratelimit)!.map(Number);
      return { r, t };
    };
    // Measured within one window: a window that ended in between would refill the budget, so that measure is taken again.
    // The client's `initialized` notification is posted without waiting for its answer: start once two
    // reads in a row differ by the second read alone, so nothing of the connect is still counting.
    let settled = await budget();
    for (;;) {
      const next = await budget();
      const quiet = settled.r - next.r === 1;
      settled = next;
      if (quiet) break;
    }
    for (let attempt = 1; ; attempt += 1) {
      const before = attempt === 1 ? settled : await budget();
      ok(await call(client, 'get_credits'));
      await client.listTools();
      const after = await budget();
      if (after.t > before.t && attempt < 3) continue;
      // tools/call: its POST (its route's request is not counted again); tools/list: its POST; the second REST read.
      expect(before.r - after.r).toBe(3);
      break;
    }
  });

  it('answers a hand-written tools/list as JSON, not an event stream', async () => {
    const res = await rawPost(bearer(fullKey));
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toMatchObject({ jsonrpc: '2.0', id: 1 });
    expect(res.body.result.tools.map((t: Json) => t.name)).toEqual(TOOLS);
  });

  it('refuses a JSON-RPC batch (one counted POST must not run many tools)', async () => {
    const call = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'get_credits', arguments: {} } });
    const res = await rawPost(bearer(fullKey), [call(1), call(2), call(3)]);
    expect([res.status, res.body.code, res.body.details]).toEqual([400, 'validation_failed', [{ field: 'body', message: 'must be one JSON-RPC message, not an array' }]]);
  });

  it('answers GET and DELETE with 405 and Allow: POST (no event stream, no session)', async () => {
    for (const method of ['get', 'delete'] as const) {
      const res = await api(server)[method]('/mcp').set(bearer(fullKey));
      expect([method, res.status, res.body.code, res.headers.allow]).toEqual([method, 405, 'method_not_allowed', 'POST']);
      const anonymous = await api(server)[method]('/mcp');
      expect([method, anonymous.status]).toEqual([method, 401]);
    }
  });
});
