export { sendError } from './errors';
export { createRouteHandler, type RouteHandlerOptions } from './router';
export { mediagenWebhook } from './webhook';
