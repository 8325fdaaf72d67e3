/** The client of one `MediaGenModule` import. Also injectable by its class, `MediaGenClient`. */
export const MEDIAGEN_CLIENT: unique symbol = Symbol('MEDIAGEN_CLIENT');

/** Resolved once the module's options are known: the webhook route is configured by then. */
export const MEDIAGEN_WEBHOOK_ROUTE: unique symbol = Symbol('MEDIAGEN_WEBHOOK_ROUTE');
