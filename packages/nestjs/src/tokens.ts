/** The client of one `MediaGenModule` import. Also injectable by its class, `MediaGenClient`. */
export const MEDIAGEN_CLIENT: unique symbol = Symbol('MEDIAGEN_CLIENT');

/** Resolved once the module's options are known: the routes' controllers are configured by then. */
export const MEDIAGEN_ROUTES_CONFIGURED: unique symbol = Symbol('MEDIAGEN_ROUTES_CONFIGURED');
