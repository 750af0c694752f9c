import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * What the fake does from now on. `ok`: replies built from the request, valid for it; with
 * `quoted`, plain-text replies come wrapped in quotes and blank lines, as chat models often answer.
 * `http_error`: the next `times` requests are answered `status`. `malformed`: the next `times`
 * replies are not JSON (`not_json`) or JSON of the wrong shape (`wrong_shape`); a plain-text
 * request gets an empty reply (a pair of quotes) either way. `hang`: no answer.
 */
export type OpenAiFakeMode =
  | { kind: 'ok'; quoted?: boolean }
  | { kind: 'http_error'; status: number; times: number; retryAfter?: number }
  | { kind: 'malformed'; times: number; how?: 'not_json' | 'wrong_shape' }
  | { kind: 'hang' };

export interface ChatRequestSeen {
  authorization?: string;
  /** The parsed request body: model, messages, response_format, temperature. */
  body: any;
  /** The user message's JSON, as the adapter sent it, in JSON mode; null for a plain-text request (a reply: read body.messages). */
  task: any;
}

export interface FakeOpenAi {
  /** The base URL, like https://api.openai.com/v1. */
  url: string;
  requests: ChatRequestSeen[];
  setMode(mode: OpenAiFakeMode): void;
  close(): Promise<void>;
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

function tagsOf(text: string): string[] {
  const words = text.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter((w) => w.length >= 4);
  return [...new Set(words)].slice(0, 5);
}

function draft(language: string, idea: string, extra = ''): { caption: string; hashtags: string[]; cta: string } {
  return { caption: `[${language}] ${idea}${extra}`, hashtags: ['#fake', ...tagsOf(idea), 'fake'], cta: `[${language}] Follow for more` };
}

/** A valid reply for the task in the user message: variants, a week plan or a caption. */
function replyFor(task: any): Record<string, unknown> {
  const language = String(task.language ?? 'en');
  const idea = String(task.post_idea ?? task.guidance ?? 'week plan');
  if (Array.isArray(task.slots)) {
    const posts = task.slots.map((s: any) => ({
      day: s.day,
      slot: s.slot,
      platform: s.platform,
      content_type: s.content_type,
      image_prompt: `A photo for ${s.platform} about ${s.trend ?? 'daily life'}`,
      ...draft(language, `Day ${s.day + 1}, post ${s.slot + 1}`, s.trend ? ` about ${s.trend}` : ''),
    }));
    return { posts };
  }
  if (Array.isArray(task.styles)) return { variants: task.styles.map((s: any) => ({ style: s.style, ...draft(language, idea, ` (${s.style})`) })) };
  return draft(language, idea);
}

function wrongShape(reply: Record<string, unknown>): Record<string, unknown> {
  if (Array.isArray(reply.posts)) return { posts: reply.posts.slice(1) };
  if (Array.isArray(reply.variants)) return { variants: [] };
  return { ...reply, hashtags: 'not a list' };
}

function completion(model: unknown, content: string, id: number) {
  return {
    id: `chatcmpl-fake${id}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 },
  };
}

/**
 * A plain-text request (no JSON mode) is a reply to a conversation: the answer thanks the last
 * user message's author, when its "name: " prefix gives one, and quotes the message, so a spec
 * sees which message was answered (and a long message makes a long reply).
 */
function textReplyFor(body: any): string {
  const last = [...body.messages].reverse().find((m: any) => m.role === 'user');
  const said = String(last?.content ?? '');
  const named = /^([^:\n]{1,40}): ([\s\S]*)$/u.exec(said);
  return named ? `Thanks, ${named[1]}! You said: ${named[2]}` : `Thanks for writing! You said: ${said}`;
}

function jsonMode(body: any): boolean {
  return body.response_format?.type === 'json_object';
}

const ROLES = ['system', 'developer', 'user', 'assistant', 'tool', 'function'];

/** What OpenAI answers 400 to in `messages`, or undefined when they are acceptable. */
function messagesProblem(body: any): { message: string; param: string } | undefined {
  for (const [i, m] of (body.messages as any[]).entries()) {
    if (!ROLES.includes(m?.role)) {
      return { message: `Invalid value: '${String(m?.role)}'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'.`, param: `messages[${i}].role` };
    }
    if (typeof m.content !== 'string' && !Array.isArray(m.content) && !(m.role === 'assistant' && m.content == null)) {
      return { message: `Invalid type for 'messages[${i}].content': expected one of a string or array of objects.`, param: `messages[${i}].content` };
    }
  }
  if (jsonMode(body) && !(body.messages as any[]).some((m) => /json/i.test(typeof m.content === 'string' ? m.content : JSON.stringify(m.content)))) {
    return { message: "'messages' must contain the word 'json' in some form, to use 'response_format' of type 'json_object'.", param: 'messages' };
  }
  return undefined;
}

/** The JSON task in the last user message, as the adapter sends it. */
function taskOf(body: any): any {
  const userMessage = [...(body.messages ?? [])].reverse().find((m: any) => m.role === 'user');
  try {
    return JSON.parse(String(userMessage?.content ?? '{}'));
  } catch {
    return { post_idea: String(userMessage?.content ?? '') };
  }
}

/**
 * Chat models the fake serves, as OpenAI's models list names them (a dated snapshot of one is
 * served too). Any other name is refused as OpenAI refuses it: 404 `model_not_found`.
 */
export const FAKE_OPENAI_MODELS = ['gpt-4o-mini', 'gpt-4o', 'gpt-4.1', 'gpt-4.1-mini', 'gpt-4.1-nano', 'gpt-4-turbo', 'gpt-3.5-turbo', 'o3-mini', 'o4-mini', 'gpt-5', 'gpt-5-mini', 'gpt-5-nano'];

function knownModel(model: string): boolean {
  return FAKE_OPENAI_MODELS.some((m) => model === m || new RegExp(`^${m.replace(/\./g, '\\.')}-\\d{4}-\\d{2}-\\d{2}$`).test(model));
}

class OpenAiFake {
  readonly requests: ChatRequestSeen[] = [];
  readonly hanging = new Set<ServerResponse>();
  mode: OpenAiFakeMode = { kind: 'ok' };
  private counter = 0;

  constructor(private readonly apiKey?: string) {}

  handle(req: IncomingMessage, res: ServerResponse, raw: Buffer): void {
    if (req.method !== 'POST' || new URL(req.url ?? '/', 'http://x').pathname !== '/v1/chat/completions') {
      return json(res, 404, { error: { message: 'Unknown route', type: 'invalid_request_error' } });
    }
    if (this.apiKey && req.headers.authorization !== `Bearer ${this.apiKey}`) {
      return json(res, 401, { error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' } });
    }
    let body: any;
    try {
      if (String(req.headers['content-type'] ?? '').split(';')[0].trim() !== 'application/json') throw new Error('not JSON');
      body = JSON.parse(raw.toString('utf8'));
    } catch {
      return json(res, 400, { error: { message: 'We could not parse the JSON body of your request.', type: 'invalid_request_error' } });
    }
    const task = jsonMode(body) ? taskOf(body) : null;
    this.requests.push({ authorization: req.headers.authorization, body, task });
    if (this.mode.kind === 'hang') return void this.hanging.add(res);
    if (this.mode.kind === 'http_error' && this.mode.times > 0) {
      this.mode.times--;
      const headers: Record<string, string> = this.mode.retryAfter !== undefined ? { 'Retry-After': String(this.mode.retryAfter) } : {};
      return json(res, this.mode.status, { error: { message: 'scripted failure', type: 'server_error' } }, headers);
    }
    if (!Array.isArray(body.messages) || typeof body.model !== 'string') {
      return json(res, 400, { error: { message: 'model and messages are required', type: 'invalid_request_error' } });
    }
    if (!knownModel(body.model)) {
      return json(res, 404, { error: { message: `The model \`${body.model}\` does not exist or you do not have access to it.`, type: 'invalid_request_error', param: null, code: 'model_not_found' } });
    }
    const problem = messagesProblem(body);
    if (problem) return json(res, 400, { error: { message: problem.message, type: 'invalid_request_error', param: problem.param, code: null } });
    json(res, 200, completion(body.model, jsonMode(body) ? this.content(task) : this.text(body), ++this.counter));
  }

  private text(body: any): string {
    if (this.mode.kind === 'malformed' && this.mode.times > 0) {
      this.mode.times--;
      return ' "" ';
    }
    const reply = textReplyFor(body);
    return this.mode.kind === 'ok' && this.mode.quoted ? `\n"${reply}"\n` : reply;
  }

  private content(task: any): string {
    if (this.mode.kind !== 'malformed' || this.mode.times <= 0) return JSON.stringify(replyFor(task));
    this.mode.times--;
    return this.mode.how === 'wrong_shape' ? JSON.stringify(wrongShape(replyFor(task))) : 'Sure! Here is your caption: have a great day.';
  }
}

/** An OpenAI-compatible chat completions server on 127.0.0.1 that answers the adapter's JSON tasks and plain-text replies. */
export async function startFakeOpenAi(opts: { apiKey?: string } = {}): Promise<FakeOpenAi> {
  const fake = new OpenAiFake(opts.apiKey);
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => fake.handle(req, res, Buffer.concat(chunks)));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    requests: fake.requests,
    setMode: (mode) => {
      fake.mode = { ...mode };
    },
    close: () =>
      new Promise<void>((r) => {
        for (const res of fake.hanging) res.destroy();
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
