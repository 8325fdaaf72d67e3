import { describeWebhookConformance, type WebhookAdapterOptions } from '@mediagen/conformance';
import express5 from 'express';
import express4 from 'express4';
import { mediagenWebhook } from '../src';
import { type ExpressModule, serve } from './support/serve';

const PATH = '/api/webhooks/mediagen';

async function start(expressModule: ExpressModule, options: WebhookAdapterOptions, before?: 'raw') {
  const { origin, close } = await serve(expressModule, (app) => {
    if (before === 'raw') app.use(expressModule.raw({ type: 'application/json', limit: options.maxBodyBytes }));
    app.post(PATH, mediagenWebhook(options));
  });
  return { url: origin + PATH, close };
}

describeWebhookConformance({ name: 'express 5', start: (options) => start(express5, options) });
describeWebhookConformance({ name: 'express 4', start: (options) => start(express4, options) });
describeWebhookConformance({
  name: 'express 5 behind express.raw()',
  frameworkReadsBody: true,
  start: (options) => start(express5, options, 'raw'),
});
describeWebhookConformance({
  name: 'express 4 behind express.raw()',
  frameworkReadsBody: true,
  start: (options) => start(express4, options, 'raw'),
});
