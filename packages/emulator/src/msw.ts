import { http, type RequestHandler } from 'msw';
import type { InProcessEmulator } from './in-process.js';

/**
 * Mock Service Worker handlers that answer every request under the emulator's base address
 * from the in-process emulator (the same router the `mediagen-emulator` server runs): the API,
 * the signed output links and the test controls.
 *
 * ```ts
 * const emu = createEmulator({ config });
 * const server = setupServer(...mediagenHandlers(emu));
 * ```
 */
export function mediagenHandlers(emulator: Pick<InProcessEmulator, 'url' | 'handler'>): RequestHandler[] {
  return [http.all(`${emulator.url}/*`, ({ request }) => emulator.handler(request))];
}
