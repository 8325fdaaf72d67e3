declare const __MEDIAGEN_MCP_VERSION__: string | undefined;

/** Replaced by package.json's version at build time (tsup `define`), as core does for its User-Agent. */
export const VERSION: string = typeof __MEDIAGEN_MCP_VERSION__ === 'string' ? __MEDIAGEN_MCP_VERSION__ : '0.0.0-dev';
