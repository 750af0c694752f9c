import { Controller, Get, HttpCode, Post, Req, Res } from '@nestjs/common';
import { ApiBody, ApiHeader, ApiOkResponse, ApiOperation, ApiProduces, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { AppConfig } from '../../../config/index.js';
import { AppError } from '../../../core/index.js';
import { Open } from '../../../platform/auth/index.js';
import { ApiErrors } from '../../../platform/http/index.js';
import { verifyInstagramSignature, verifyXSignature, xCrcResponse } from '../../publishing/index.js';
import { InboundIntake } from '../application/inbound-intake.js';
import { MalformedDelivery, parseInstagramDelivery, parseXDelivery, type InboundMessage } from '../domain/inbound.js';

/** Where main.ts hands these routes their raw bytes (the signatures cover them exactly). */
export const PLATFORM_WEBHOOK_PATHS = ['/instagram', '/x'];

/** A challenge echoed back verbatim: plain tokens only, so the echo can carry nothing else. */
const CHALLENGE = /^[A-Za-z0-9._~-]{1,512}$/;

const INTAKE_DOC = { schema: { type: 'object', properties: { received: { type: 'boolean' }, stored: { type: 'integer' }, duplicates: { type: 'integer' } } } } as const;

/**
 * The platforms' webhooks for comments and direct messages (Instagram through Meta's Graph API
 * webhooks, X through the Account Activity API). No bearer token: the platform's signature over
 * the raw bytes is the credential, checked before anything is parsed; 401 for a missing or wrong
 * one. A delivery repeated stores nothing new. Called by the platforms, not by clients.
 */
@ApiTags('webhooks')
@Controller('webhooks')
export class PlatformWebhooksController {
  constructor(
    private readonly config: AppConfig,
    private readonly intake: InboundIntake,
  ) {}

  @Get('instagram')
  @Open({ openLimit: true })
  @ApiOperation({ summary: 'Meta’s subscription check: answers `hub.challenge` when `hub.verify_token` is INSTAGRAM_WEBHOOK_VERIFY_TOKEN. Called by Meta.' })
  @ApiQuery({ name: 'hub.mode', required: true, schema: { type: 'string', enum: ['subscribe'] } })
  @ApiQuery({ name: 'hub.verify_token', required: true, schema: { type: 'string' } })
  @ApiQuery({ name: 'hub.challenge', required: true, schema: { type: 'string' } })
  @ApiProduces('text/plain')
  @ApiOkResponse({ schema: { type: 'string' }, description: 'The challenge, verbatim.' })
  @ApiErrors('unauthorized', 'rate_limited')
  verifyInstagram(@Req() req: Request, @Res({ passthrough: true }) res: Response): string {
    const { 'hub.mode': mode, 'hub.verify_token': token, 'hub.challenge': challenge } = req.query;
    const expected = this.config.engagement.instagramVerifyToken;
    if (mode !== 'subscribe' || expected === null || token !== expected || typeof challenge !== 'string' || !CHALLENGE.test(challenge)) {
      throw new AppError('unauthorized', 'The subscription check could not be verified.');
    }
    res.type('text/plain');
    return challenge;
  }

  @Post('instagram')
  @HttpCode(200)
  @Open({ openLimit: true })
  @ApiOperation({ summary: 'Instagram comments (`field: comments`) and Instagram Messaging events, signed with the app secret. Called by Meta.' })
  @ApiHeader({ name: 'X-Hub-Signature-256', required: true, description: '`sha256=<hex HMAC-SHA256 of the body with the app secret>`.' })
  @ApiBody({ schema: { type: 'object', description: '`{object: "instagram", entry: [...]}`, up to 10 MiB.' } })
  @ApiOkResponse(INTAKE_DOC)
  @ApiErrors('unauthorized', 'validation_failed', 'rate_limited')
  async instagram(@Req() req: Request) {
    const secret = this.config.engagement.instagramAppSecret;
    const body = rawOf(req);
    if (secret === null || !verifyInstagramSignature(secret, body, header(req, 'x-hub-signature-256'))) throw unsigned();
    return this.take(() => parseInstagramDelivery(JSON.parse(body.toString('utf8'))));
  }

  @Get('x')
  @Open({ openLimit: true })
  @ApiOperation({ summary: 'X’s challenge-response check (CRC): `{response_token}` for `crc_token`, signed with the consumer secret. Called by X.' })
  @ApiQuery({ name: 'crc_token', required: true, schema: { type: 'string' } })
  @ApiOkResponse({ schema: { type: 'object', properties: { response_token: { type: 'string', example: 'sha256=x0mYd8hz2goCTfcNAaMqENy2BFgJJfJOb4PdvTffpwg=' } } } })
  @ApiErrors('unauthorized', 'validation_failed', 'rate_limited')
  crc(@Req() req: Request) {
    const secret = this.config.engagement.xConsumerSecret;
    const token = req.query.crc_token;
    if (secret === null) throw unsigned();
    if (typeof token !== 'string' || !CHALLENGE.test(token)) throw new AppError('validation_failed', 'crc_token is required.', [{ field: 'crc_token', message: 'required' }]);
    return xCrcResponse(secret, token);
  }

  @Post('x')
  @HttpCode(200)
  @Open({ openLimit: true })
  @ApiOperation({ summary: 'X Account Activity events: direct messages and mentions of the connected account, signed with the consumer secret. Called by X.' })
  @ApiHeader({ name: 'x-twitter-webhooks-signature', required: true, description: '`sha256=<base64 HMAC-SHA256 of the body with the consumer secret>`.' })
  @ApiBody({ schema: { type: 'object', description: 'An Account Activity event (`for_user_id`, `direct_message_events`, `tweet_create_events`), up to 10 MiB.' } })
  @ApiOkResponse(INTAKE_DOC)
  @ApiErrors('unauthorized', 'validation_failed', 'rate_limited')
  async x(@Req() req: Request) {
    const secret = this.config.engagement.xConsumerSecret;
    const body = rawOf(req);
    if (secret === null || !verifyXSignature(secret, body, header(req, 'x-twitter-webhooks-signature'))) throw unsigned();
    return this.take(() => parseXDelivery(JSON.parse(body.toString('utf8'))));
  }

  private async take(parse: () => InboundMessage[]) {
    let messages: InboundMessage[];
    try {
      messages = parse();
    } catch (err) {
      if (err instanceof SyntaxError || err instanceof MalformedDelivery) throw new AppError('validation_failed', 'The delivery is not a platform event this endpoint takes.');
      throw err;
    }
    const { stored, duplicates } = await this.intake.receive(messages);
    return { received: true, stored, duplicates };
  }
}

/** The exact bytes received (none when the body was not read as bytes): the signature is checked over them first. */
function rawOf(req: Request): Buffer {
  return Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
}

function header(req: Request, name: string): string | undefined {
  const v = req.headers[name];
  return typeof v === 'string' ? v : undefined;
}

function unsigned(): AppError {
  return new AppError('unauthorized', 'The webhook signature could not be verified.');
}
