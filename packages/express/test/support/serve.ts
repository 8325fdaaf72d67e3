import { listen } from '@mediagen/conformance';
import type express from 'express';
import type { Express } from 'express';

export type ExpressModule = typeof express;

/** An app from this Express module, set up by `setup`, served on a free port. */
export async function serve(expressModule: ExpressModule, setup: (app: Express) => void) {
  const app = expressModule();
  setup(app);
  return listen(app);
}
