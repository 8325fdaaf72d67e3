import {
  describeRouteConformance,
  describeWebhookConformance,
  type RouteAdapterOptions,
  type WebhookAdapterOptions,
} from '@mediagen/conformance';
import { MediaGenClient } from '@mediagen/core';
import express5 from 'express';
import express4 from 'express4';
import { createRouteHandler } from '../src';
import { type ExpressModule, serve } from './support/serve';

async function start(expressModule: ExpressModule, { basePath, ...options }: RouteAdapterOptions, before?: 'json') {
  const { origin, close } = await serve(expressModule, (app) => {
    // An app that parses JSON for its own routes first: the router takes the parsed body
    // (and refuses it on the webhook route, whose signature needs the bytes, unless kept).
    if (before === 'json') app.use(expressModule.json({ verify: (req, _res, buf) => void ((req as { rawBody?: Buffer }).rawBody = buf) }));
    app.use(basePath, createRouteHandler(options));
  });
  return { origin, close };
}

describeRouteConformance({ name: 'express 5', start: (options) => start(express5, options) });
describeRouteConformance({ name: 'express 4', start: (options) => start(express4, options) });
describeRouteConformance({ name: 'express 5 behind express.json()', start: (options) => start(express5, options, 'json') });
describeRouteConformance({ name: 'express 4 behind express.json()', start: (options) => start(express4, options, 'json') });

// The webhook route of the same router (the receiver alone calls no API: its client is never used).
const unusedClient = new MediaGenClient({ apiKey: 'svc_live_unused', baseUrl: 'http://127.0.0.1:9' });
async function startReceiver(expressModule: ExpressModule, { secrets, onEvent, maxBodyBytes }: WebhookAdapterOptions) {
  const { origin, close } = await serve(expressModule, (app) => {
    app.use('/api', createRouteHandler({ client: unusedClient, webhook: { secrets, onEvent, maxBodyBytes }, onError: () => {} }));
  });
  return { url: `${origin}/api/webhooks/mediagen`, close };
}
describeWebhookConformance({ name: 'express 5 createRouteHandler', start: (options) => startReceiver(express5, options) });
describeWebhookConformance({ name: 'express 4 createRouteHandler', start: (options) => startReceiver(express4, options) });
