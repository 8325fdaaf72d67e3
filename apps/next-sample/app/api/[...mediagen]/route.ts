import { createRouteHandler } from '@mediagen/next';
import { studio } from '../../../lib/mediagen';

// Every route under /api, from the one handler (lib/mediagen.ts): submit, list, status, events,
// credits, estimate, models and the webhook receiver. The methods it does not answer on a path
// get its own 405 error body. (proxy.ts leaves the receiver alone: see its matcher.)
export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = createRouteHandler(studio().handler);
