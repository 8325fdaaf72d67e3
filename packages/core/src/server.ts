/**
 * `@mediagen/core/server`: framework-neutral server pieces the adapters mount (Web `Request`
 * in, `Response` out). A separate entry, so apps that only call the API don't bundle it.
 */
export { createApiHandler, DEFAULT_ALLOWED_PARAMS, type ApiHandler, type ApiHandlerOptions } from './server/api-handler';
export { errorReply, errorResponse, type ErrorReply } from './server/error-reply';
export { isJsonContentType } from './util/body';
