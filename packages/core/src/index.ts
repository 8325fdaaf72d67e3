export { MediaGenClient, DEFAULT_BASE_URL, type ClientOptions } from './client';
export * from './errors';
export type { RequestOptions, RetryInfo } from './http/transport';
export type { ResponseMeta } from './http/response-meta';
export type { Submitted, WaitOptions, RunOptions } from './resources/generations';
export * from './types';
