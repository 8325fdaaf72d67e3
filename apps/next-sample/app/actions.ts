'use server';

import { createGenerationActions, type SubmitOptions } from '@mediagen/next/server';
import { studio } from '../lib/mediagen';
import { userOf } from '../lib/user';

// The handler's own rules (the same as POST /api/generations), for the user of the request.
const actions = createGenerationActions({ handler: studio().handler, identify: userOf });

// Explicit async functions: a 'use server' file that exports a constant or a destructured
// binding breaks every action in it.

export async function submitGeneration(params: unknown, options?: SubmitOptions) {
  return actions.submitGeneration(params, options);
}

export async function estimateGeneration(params: unknown) {
  return actions.estimateGeneration(params);
}

export async function listGenerations() {
  return actions.listGenerations();
}
