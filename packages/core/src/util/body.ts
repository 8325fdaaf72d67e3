/** `application/json`, `…+json`, with or without parameters (`; charset=utf-8`). */
export function isJsonContentType(value: string | null | undefined): boolean {
  return /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i.test(value ?? '');
}

/** Thrown by `readBody` past its limit. */
export const BODY_TOO_LARGE = Symbol('body too large');
/** Thrown by `readBody` when the body is still arriving at its deadline. */
export const BODY_TIMEOUT = Symbol('body timeout');

/**
 * The whole body of a Web `Request`, refused (`BODY_TOO_LARGE`) as soon as it passes `max`
 * bytes, and (`BODY_TIMEOUT`) when it has not ended by `deadline` (epoch ms): a sender that
 * trickles or never finishes cannot hold the reader.
 */
export async function readBody(request: Request, max: number, deadline = Number.POSITIVE_INFINITY): Promise<Uint8Array> {
  if (Number(request.headers.get('content-length')) > max) throw BODY_TOO_LARGE;
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired =
    deadline === Number.POSITIVE_INFINITY
      ? undefined
      : new Promise<typeof BODY_TIMEOUT>((resolve) => (timer = setTimeout(resolve, Math.max(0, deadline - Date.now()), BODY_TIMEOUT)));
  try {
    for (;;) {
      const next = expired ? await Promise.race([reader.read(), expired]) : await reader.read();
      if (next === BODY_TIMEOUT) throw BODY_TIMEOUT;
      const { done, value } = next;
      if (done) return new Uint8Array(await new Blob(chunks as BlobPart[]).arrayBuffer());
      // Counted while streaming: an endless body is cut off at the limit, not buffered whole.
      if ((size += value.byteLength) > max) throw BODY_TOO_LARGE;
      chunks.push(value);
    }
  } catch (error) {
    // Not awaited: a body built from an async iterator (Next's Node request, undici's `Request`)
    // settles `cancel()` only after its pending read, which a stalled sender never ends.
    reader.cancel().catch(() => {});
    throw error;
  } finally {
    clearTimeout(timer);
  }
}
