import { MediaGenError } from '@mediagen/core';
import { errorReply } from '@mediagen/core/server';
import { type ArgumentsHost, Catch, type ExceptionFilter } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';

/**
 * Opt-in: SDK errors thrown in a Nest request become the service's status and error body
 * (`error`, `message`, `next`, `request_id`, …) through core's `errorReply`, so a browser sees
 * `402 INSUFFICIENT_CREDITS`, not a bare 500. Register it globally
 * (`{ provide: APP_FILTER, useClass: MediaGenExceptionFilter }`) or with `@UseFilters()`.
 * Only `MediaGenError`s in an HTTP request are caught; other errors keep going to your own
 * filters, and in any other context (microservice, WebSocket, GraphQL, …) the error is
 * rethrown as it is, as Nest's own filter for those contexts does.
 */
@Catch(MediaGenError)
export class MediaGenExceptionFilter implements ExceptionFilter<MediaGenError> {
  constructor(private readonly adapterHost: HttpAdapterHost) {}

  catch(error: MediaGenError, host: ArgumentsHost): void {
    if (host.getType() !== 'http') throw error;
    const adapter = this.adapterHost.httpAdapter;
    const res = host.switchToHttp().getResponse<unknown>();
    const { status, body, headers } = errorReply(error);
    for (const [name, value] of Object.entries(headers)) adapter.setHeader(res, name, value);
    adapter.reply(res, body, status);
  }
}
