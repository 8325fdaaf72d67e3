'use server';

import { createGenerationActions } from '@mediagen/next/server';
import { studio } from '../lib/mediagen';
import { userOf } from '../lib/user';

// The handler's own rules (the same as GET /api/generations), for the user of the request: the
// page's first render lists this user's generations. The page submits and estimates through the
// JSON route (useGenerate: POST /api/generations with an Idempotency-Key), one path for both.
const actions = createGenerationActions({ handler: studio().handler, identify: userOf });

// Explicit async functions: a 'use server' file that exports a constant or a destructured
// binding breaks every action in it.

export async function listGenerations() {
  return actions.listGenerations();
}
