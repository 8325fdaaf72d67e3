import { describeRouteConformance, type RouteAdapterOptions } from '@mediagen/conformance';
import express5 from 'express';
import express4 from 'express4';
import { mediagenRouter } from '../src';
import { type ExpressModule, serve } from './support/serve';

async function start(expressModule: ExpressModule, { basePath, ...options }: RouteAdapterOptions, before?: 'json') {
  const { origin, close } = await serve(expressModule, (app) => {
    // An app that parses JSON for its own routes first: the router takes the parsed body
    // (and refuses it on the webhook route, whose signature needs the bytes, unless kept).
    if (before === 'json') app.use(expressModule.json({ verify: (req, _res, buf) => void ((req as { rawBody?: Buffer }).rawBody = buf) }));
    app.use(basePath, mediagenRouter(options));
  });
  return { origin, close };
}

describeRouteConformance({ name: 'express 5', start: (options) => start(express5, options) });
describeRouteConformance({ name: 'express 4', start: (options) => start(express4, options) });
describeRouteConformance({ name: 'express 5 behind express.json()', start: (options) => start(express5, options, 'json') });
describeRouteConformance({ name: 'express 4 behind express.json()', start: (options) => start(express4, options, 'json') });
