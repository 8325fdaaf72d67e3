/**
 * `@mediagen/next`: route handlers for the App Router. Web `Request` in, `Response` out, no
 * `node:` import and no `next` import, so they run on the Node runtime and on Web-only ones.
 * Server actions are in `@mediagen/next/server`, the client hooks (from `@mediagen/react`) in `@mediagen/next/client`.
 */

export { createRouteHandler, type MediaGenRoutes, type NextRouteHandler, type RouteContext, type RouteHandlerOptions } from './route';
export { createWebhookHandler } from './webhook';
