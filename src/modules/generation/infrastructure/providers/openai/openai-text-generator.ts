import { Logger } from '@nestjs/common';
import { httpJson, type RetryOptions } from '../../../../../platform/outbound/index.js';
import {
  TextGenerator,
  type CaptionDraft,
  type CaptionRequest,
  type CaptionStyle,
  type PlannedPost,
  type ReplyDraft,
  type ReplyDraftRequest,
  type WeekPlanRequest,
} from '../../../application/ports/index.js';
import { fromOutbound, upstreamFailed } from '../shared/provider-failure.js';
import { checkReplyRequest } from '../shared/reply-rules.js';
import { weekSlots } from '../shared/week-slots.js';
import { captionMessages, replyMessages, variantMessages, weekPlanMessages, type ChatMessage } from './prompts.js';
import { captionDraft, captionVariants, replyObject, replyText, ReplyShapeError, weekPosts } from './reply-shape.js';

export interface OpenAiOptions {
  /** Base URL of an OpenAI-compatible server, e.g. https://api.openai.com/v1. */
  baseUrl: string;
  apiKey?: string;
  model: string;
  timeoutMs: number;
  temperature?: number;
  retry?: RetryOptions;
}

/** A malformed reply is asked for once more; models usually get it right the second time. */
const ATTEMPTS_FOR_SHAPE = 2;

/**
 * Captions, variants and week plans from any OpenAI-compatible chat completions server, in JSON
 * mode; replies to the audience in plain text, the thread as user and assistant messages.
 */
export class OpenAiTextGenerator extends TextGenerator {
  private readonly logger = new Logger('OpenAiTextGenerator');

  constructor(private readonly opts: OpenAiOptions) {
    super();
  }

  async caption(req: CaptionRequest, signal?: AbortSignal): Promise<CaptionDraft> {
    const language = req.language ?? 'en';
    return this.complete(captionMessages(req), (reply) => captionDraft(reply, 'the reply', language), signal);
  }

  async variants(req: CaptionRequest & { styles: CaptionStyle[] }, signal?: AbortSignal): Promise<Array<CaptionDraft & { style: CaptionStyle }>> {
    const language = req.language ?? 'en';
    return this.complete(variantMessages(req), (reply) => captionVariants(reply, req.styles, language), signal);
  }

  async planWeek(req: WeekPlanRequest, signal?: AbortSignal): Promise<PlannedPost[]> {
    const slots = weekSlots(req);
    return this.complete(weekPlanMessages(req, slots), (reply) => weekPosts(reply, slots, req.language), signal);
  }

  async reply(req: ReplyDraftRequest, signal?: AbortSignal): Promise<ReplyDraft> {
    checkReplyRequest('openai', req);
    const text = await this.ask(replyMessages(req), 'text', (content) => replyText(content, req.character.name, req.maxLength), signal);
    return { text };
  }

  private async complete<T>(messages: ChatMessage[], read: (reply: Record<string, unknown>) => T, signal?: AbortSignal): Promise<T> {
    return this.ask(messages, 'json', (content) => read(replyObject(content)), signal);
  }

  /** Asks once more after a reply `read` refuses with a ReplyShapeError; a second refusal is a bad_response. */
  private async ask<T>(messages: ChatMessage[], format: 'json' | 'text', read: (content: unknown) => T, signal?: AbortSignal): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const content = await this.chat(messages, format, signal);
      try {
        return read(content);
      } catch (err) {
        if (!(err instanceof ReplyShapeError)) throw err;
        if (attempt >= ATTEMPTS_FOR_SHAPE) {
          throw upstreamFailed('openai', 'bad_response', `The text model answered unusably twice in a row (${err.message}).`);
        }
        this.logger.warn(`Text model reply rejected (${err.message}); asking again`);
      }
    }
  }

  /** One chat completion, in JSON mode or plain text; answers the message content, or undefined when there is none to read. */
  private async chat(messages: ChatMessage[], format: 'json' | 'text', signal?: AbortSignal): Promise<unknown> {
    if (!this.opts.apiKey) throw upstreamFailed('openai', 'not_configured', 'The text model has no API key configured.');
    try {
      const res = await httpJson<ChatCompletion>(`${this.opts.baseUrl}/chat/completions`, {
        ...this.opts.retry,
        method: 'POST',
        headers: { Authorization: `Bearer ${this.opts.apiKey}` },
        json: {
          model: this.opts.model,
          messages,
          ...(format === 'json' ? { response_format: { type: 'json_object' } } : {}),
          temperature: this.opts.temperature ?? 0.8,
        },
        timeoutMs: this.opts.timeoutMs,
        signal,
      });
      const choice = res.data?.choices?.[0];
      // A reply cut off at the token limit is never complete JSON, whatever it looks like, nor a finished reply.
      return choice?.finish_reason === 'length' ? undefined : choice?.message?.content;
    } catch (err) {
      throw fromOutbound('openai', err, format === 'json' ? 'text request' : 'reply request');
    }
  }
}

interface ChatCompletion {
  choices?: Array<{ message?: { content?: unknown }; finish_reason?: string }>;
}
