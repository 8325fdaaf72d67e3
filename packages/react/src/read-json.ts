import { SSE_MAX_EVENT_CHARS } from './sse';

/**
 * The JSON of an answer from the app's routes, or undefined when it is not JSON, was cut off,
 * or runs past `SSE_MAX_EVENT_CHARS` (a generation state or an error is a few kilobytes: a
 * longer answer is not the handler's, and the page stops reading it rather than hold it all).
 */
export async function readJson(response: Response): Promise<unknown> {
  const reader = response.body?.pipeThrough(new TextDecoderStream() as unknown as ReadableWritablePair<string, Uint8Array>).getReader();
  if (!reader) return undefined;
  let text = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += value;
      if (text.length > SSE_MAX_EVENT_CHARS) {
        reader.cancel().catch(() => {});
        return undefined;
      }
    }
    return JSON.parse(text) as unknown;
  } catch {
    return undefined; // cut off, or not JSON
  }
}
