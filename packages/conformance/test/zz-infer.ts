import { MediaGenClient } from '@mediagen/core';
import { createNodeHandler } from '@mediagen/core/node';
import { createMediaGenHandler } from '@mediagen/core/server';

export const b = createNodeHandler(createMediaGenHandler({ client: new MediaGenClient() }));
