import type { Request as ExpressRequest } from 'express';
import { isJsonContentType } from './content-type';

/** Why a JSON body was refused, as a spec-shaped error. */
export class BodyError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** The request's JSON object body: the one `express.json()` already parsed, or read here with a size limit. */
export async function readJsonObject(req: ExpressRequest, maxBytes: number): Promise<Record<string, unknown>> {
  let value: unknown = req.body;
  const alreadyRead = req.readableDidRead || req.readableEnded || (req as { _body?: boolean })._body === true;
  if (!alreadyRead) {
    if (!isJsonContentType(req.get('content-type'))) throw new BodyError(415, 'Send the body as application/json.');
    const bytes = await readBytes(req, maxBytes);
    try {
      value = JSON.parse(bytes.toString('utf8'));
    } catch {
      throw new BodyError(422, 'The body is not valid JSON.');
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new BodyError(422, 'The body must be a JSON object.');
  }
  return value as Record<string, unknown>;
}

/** Reads the whole body; past the limit it rejects at once and lets the rest drain, so the 413 still gets through. */
function readBytes(req: ExpressRequest, maxBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (chunk: Buffer) => {
      if (over) return;
      size += chunk.length;
      if (size > maxBytes) {
        over = true;
        reject(new BodyError(413, `The body is larger than ${maxBytes} bytes.`));
      } else chunks.push(chunk);
    });
    req.once('end', () => over || resolve(Buffer.concat(chunks)));
    req.once('error', reject);
  });
}
