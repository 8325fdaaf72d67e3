import type { GenerateParams } from '@mediagen/core';
import { DEFAULT_ALLOWED_PARAMS, SubmitRefusedError } from '@mediagen/core/server';
import { MediaGenClient } from '@mediagen/nestjs';
import { Body, Controller, Get, Headers, HttpCode, Param, Post } from '@nestjs/common';
import { GenerationStore } from './store.js';

const ALLOWED = new Set(DEFAULT_ALLOWED_PARAMS);

/**
 * The browser's API. The key stays on the server; SDK errors become the service's status and
 * error body through `MediaGenExceptionFilter` (registered in the app module).
 */
@Controller('api')
export class ApiController {
  constructor(
    private readonly client: MediaGenClient,
    private readonly store: GenerationStore,
  ) {}

  /** What webhooks (and polling) taught us, newest first. */
  @Get('generations')
  list() {
    return { generations: this.store.list() };
  }

  /**
   * Submit. The page sends one `Idempotency-Key` per form submission and it is passed through,
   * so a double click, a reload or a lost answer never bills twice.
   */
  @Post('generations')
  @HttpCode(202)
  async submit(@Body() body: unknown, @Headers('idempotency-key') idempotencyKey?: string) {
    const params = checkParams(body);
    const submitted = await this.client.generations.create(params, idempotencyKey ? { idempotencyKey } : {});
    // An idempotent replay answers the same generation: INSERT OR IGNORE keeps one row.
    this.store.addSubmitted(submitted, params);
    return submitted;
  }

  @Get('generations/:id')
  get(@Param('id') id: string) {
    return this.client.generations.get(id);
  }

  @Get('models')
  models() {
    return this.client.models.list();
  }

  @Get('credits')
  credits() {
    return this.client.credits.get();
  }
}

/** The generate params a browser may send (core's list); anything else is refused with a 422. */
function checkParams(body: unknown): GenerateParams {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new SubmitRefusedError('The body must be a JSON object of generate params.', { status: 422, code: 'INVALID_BODY' });
  }
  const field = Object.keys(body).find((key) => !ALLOWED.has(key));
  if (field) throw new SubmitRefusedError(`The param "${field}" is not accepted here.`, { status: 422, code: 'INVALID_BODY' });
  const { model } = body as { model?: unknown };
  if (typeof model !== 'string' || model === '') {
    throw new SubmitRefusedError('The body needs a "model" slug.', { status: 422, code: 'INVALID_BODY' });
  }
  return body as GenerateParams;
}
