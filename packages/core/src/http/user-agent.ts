/** Replaced by the package.json version at build time (tsup `define`): the one source of the version. */
declare const __MEDIAGEN_VERSION__: string;

export const SDK_VERSION: string = typeof __MEDIAGEN_VERSION__ === 'string' ? __MEDIAGEN_VERSION__ : '0.0.0-dev';

/**
 * `mediagen-core/<version> <runtime>/<version>` (as stripe-node and openai-node name
 * themselves): `node/20.20.2`, `bun/…`, `deno/…`; elsewhere (an edge runtime, a browser) the
 * runtime's own name when it gives one.
 */
export function userAgent(): string {
  const g = globalThis as { process?: { versions?: Record<string, string> }; navigator?: { userAgent?: string } };
  const v = g.process?.versions ?? {};
  const name = v.bun ? 'bun' : v.deno ? 'deno' : v.node ? 'node' : undefined;
  const runtime = name ? `${name}/${v[name]}` : `${(g.navigator?.userAgent ?? 'unknown').replace(/[^\x21-\x7e]+/g, '_').slice(0, 40)}`;
  return `mediagen-core/${SDK_VERSION} ${runtime}`;
}
