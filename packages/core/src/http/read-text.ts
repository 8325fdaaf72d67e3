/** Largest error body read: enough for any service error object; the rest is discarded unread. */
export const ERROR_BODY_MAX = 65_536; // 64 KiB
/** Largest success body read (a model list is tens of KB): a runaway answer cannot fill memory. */
export const SUCCESS_BODY_MAX = 16_777_216; // 16 MiB

/**
 * A response body as text, read up to `max` bytes and the rest cancelled, never buffered: the
 * head of a longer body with `cut`, else undefined. A body whose declared length fits is read
 * the fast way, unless it is compressed: then the length is of the compressed bytes, and
 * fetch's decompressed text could be any size (a gzip bomb).
 */
export async function readText(response: Response, max: number, cut?: boolean): Promise<string | undefined> {
  const declared = response.headers.get('content-length');
  const fits = declared !== null && +declared <= max && !response.headers.has('content-encoding');
  const reader = fits ? undefined : response.body?.getReader();
  if (!reader) return response.text();
  const decoder = new TextDecoder();
  let text = '';
  for (let room = max; ; ) {
    const { done, value } = await reader.read();
    if (done) return text + decoder.decode();
    if (value.byteLength > room) {
      await reader.cancel().catch(() => {});
      return cut ? text + decoder.decode(value.subarray(0, room)) : undefined;
    }
    room -= value.byteLength;
    text += decoder.decode(value, { stream: true });
  }
}
