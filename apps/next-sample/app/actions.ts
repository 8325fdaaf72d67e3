'use server';

import { createGenerationActions, type SubmitOptions } from '@mediagen/next/server';
import { studio } from '../lib/mediagen';

const { client } = studio();
const actions = createGenerationActions({ client, onSubmitted: (submitted, params) => studio().store.addSubmitted(submitted, params) });

// Explicit async functions: a 'use server' file that exports a constant or a destructured
// binding breaks every action in it.

export async function submitGeneration(params: unknown, options?: SubmitOptions) {
  return actions.submitGeneration(params, options);
}

export async function estimateGeneration(params: unknown) {
  return actions.estimateGeneration(params);
}
