import { describeRouteConformance } from '@mediagen/conformance';
import { createRouteHandler } from '../src';
import { serveRoute } from './support/serve';

// The catch-all route's exports, served as Next serves a route module: by method.
describeRouteConformance({ name: 'next catch-all route', start: async (options) => serveRoute(createRouteHandler(options)) });
