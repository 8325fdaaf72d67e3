/** `application/json`, `…+json`, with or without parameters (`; charset=utf-8`). */
export function isJsonContentType(value: string | null | undefined): boolean {
  return /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i.test(value ?? '');
}

/** Thrown by `readBody` past its limit. */
export const BODY_TOO_LARGE = Symbol('body too large');

/** The whole body of a Web `Request`, refused (`BODY_TOO_LARGE`) as soon as it passes `max` bytes. */
export async function readBody(request: Request, max: number): Promise<Uint8Array> {
  if (Number(request.headers.get('content-length')) > max) throw BODY_TOO_LARGE;
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return new Uint8Array(await new Blob(chunks as BlobPart[]).arrayBuffer());
    // Counted while streaming: an endless body is cut off at the limit, not buffered whole.
    if ((size += value.byteLength) > max) {
      await reader.cancel().catch(() => {});
      throw BODY_TOO_LARGE;
    }
    chunks.push(value);
  }
}
