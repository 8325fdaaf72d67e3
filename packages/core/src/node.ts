/**
 * `@mediagen/core/node`: what every Node framework needs, once (tRPC's node-http layer is the
 * model): a Node request in as a Web `Request` and a Web `Response` written back, raw-body
 * capture and size limits, a JSON parser that ran first found and answered, the platform
 * parsers' refusals in core's statuses, the body deadline. Its `node:` imports are loaded
 * lazily by the start-up check alone, so bundling it for another runtime does no harm.
 */

export { isDeliveryTo, routePath, type WatchedServer, watchBodyDeadline } from './node/body-deadline';
export { type BodyLimit, parseLimit } from './node/limit';
export { createNodeHandler, type NodeHandler, type NodeHandlerOptions } from './node/node-handler';
export { type ParserRefusal, parserRefusal, parserRefusalResponse, REFUSAL_CODES } from './node/parser-refusal';
export { type BodySource, findRawBody } from './node/raw-body';
export { checkRawBodyKept, type RawBodySupport } from './node/raw-body-check';
export { sendWebResponse } from './node/send-response';
export { type NodeRequestLike, type NodeRequestSource, type NodeResponseLike, nodeRequestOf, type WrappedNodeRequest } from './node/types';
export { type ToWebRequestOptions, toWebRequest } from './node/web-request';
export { createNodeWebhookHandler, type NodeWebhookContext, type NodeWebhookHandlerOptions } from './node/webhook';
export { isParsedBody, isRawBody, RAW_BODY_HELP, type RawBody } from './webhooks/raw-body';
