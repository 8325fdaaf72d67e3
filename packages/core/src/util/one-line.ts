/**
 * An error's text is printed: by `console.error`, by a logger, on a terminal. Much of it comes
 * from outside (a service answer, a proxy's page, a generation's failure message, an id from a
 * request path), and outside text is hostile until checked: a line break would forge a second
 * log line, an escape sequence would retitle or clear the terminal, a bidi override would
 * reorder what is shown.
 *
 * So where such text is read into an error (a message, a code, a hint, a request id), it is
 * made one line of inert text: each run of control characters (C0, DEL, C1), format characters
 * (bidi controls, zero-width joiners, tags) and separators (spaces of any width, line and
 * paragraph separators) becomes one space.
 */
const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Z}]+/gu;

/** `text` as one line of inert characters (see above); undefined stays undefined. */
export function oneLine<T extends string | undefined>(text: T): T {
  return text?.replace(UNPRINTABLE, ' ') as T;
}
