import { errorReply } from '@mediagen/core/server';
import type { Response as ExpressResponse } from 'express';

/** Sends the spec's status and error body for an error the SDK threw (core's `errorReply`). */
export function sendError(res: ExpressResponse, error: unknown): void {
  const { status, body, headers } = errorReply(error);
  res.status(status).set(headers).json(body);
}
