export { sendError } from './errors';
export { createRouteHandler, type RouteHandlerOptions, type RouteHandlers } from './router';
export { mediagenWebhook } from './webhook';
