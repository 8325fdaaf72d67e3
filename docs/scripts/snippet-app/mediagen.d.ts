// What the Next.js snippets (the guide's and @mediagen/next's README) import as '@/lib/mediagen':
// the exports of the `lib/mediagen.ts` module they write first. Keep it to those.
import type { MediaGenClient } from '@mediagen/core';
import type { GenerationLedger } from '@mediagen/core/ledger';
import type { MediaGenHandler } from '@mediagen/core/server';

export declare const client: MediaGenClient;
export declare const ledger: GenerationLedger;
export declare const handler: MediaGenHandler;
export declare function userOf(request: Request): string | undefined;
