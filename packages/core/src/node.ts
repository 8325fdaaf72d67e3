/**
 * `@mediagen/core/node`: core's handler on any Node server (tRPC's node-http layer is the
 * model): a Node request in as a Web `Request` and a Web `Response` written back, raw-body
 * capture and size limits, a JSON parser that ran first found and answered, the body deadline.
 * Its `node:` imports are loaded lazily by the start-up check alone, so bundling it for another
 * runtime does no harm. The pieces only the adapters need are in `@mediagen/core/internal`.
 */

export { FileMediaStore, type FileMediaStoreOptions } from './node/file-media-store';
export { isLoopbackUrl, type LoopbackMedia, serveLoopbackMedia } from './node/loopback-media';
export { createNodeHandler, type NodeHandler, type NodeHandlerOptions } from './node/node-handler';
export { type NodeMediaInputsOptions, nodeMediaInputs } from './node/node-media-inputs';
export { sendWebResponse } from './node/send-response';
export type { NodeRequestLike, NodeRequestSource, NodeResponseLike, WrappedNodeRequest } from './node/types';
export { type ToWebRequestOptions, toWebRequest } from './node/web-request';
