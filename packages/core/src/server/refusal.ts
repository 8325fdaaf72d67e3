import { MediaGenError } from '../errors';

export interface SubmitRefusedInit {
  /** A 4xx status. Default 403. */
  status?: number;
  /** Your own code, for the front end to branch on. Default `SUBMIT_REFUSED`. */
  code?: string;
  /** What to do instead (shown as the error body's `next`). */
  next?: string;
}

/**
 * Thrown from `beforeSubmit` to refuse a submit with a 4xx and a message the browser may see
 * (not signed in, over the user's own quota). Anything else thrown there is a 500 whose
 * message is not shown.
 */
export class SubmitRefusedError extends MediaGenError {
  constructor(message: string, init: SubmitRefusedInit = {}) {
    const status = init.status !== undefined && init.status >= 400 && init.status <= 499 ? Math.floor(init.status) : 403;
    super(message, { status, code: init.code ?? 'SUBMIT_REFUSED', next: init.next ?? 'Change the request; it was refused by this app.' });
  }
}
