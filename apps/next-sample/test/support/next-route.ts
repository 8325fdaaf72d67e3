import type { IncomingMessage, ServerResponse } from 'node:http';
import { listen } from '@mediagen/conformance';
import { NodeNextRequest, NodeNextResponse } from 'next/dist/server/base-http/node';
import type { AppRouteRouteDefinition } from 'next/dist/server/route-definitions/app-route-route-definition';
import { AppRouteRouteModule, type AppRouteUserlandModule } from 'next/dist/server/route-modules/app-route/module.compiled';
import { sendResponse } from 'next/dist/server/send-response';
import { NextRequestAdapter, signalFromNodeResponse } from 'next/dist/server/web/spec-extension/adapters/next-request';
import { unstable_doesMiddlewareMatch } from 'next/experimental/testing/server';
import { NextRequest } from 'next/server';
import { proxy, config as proxyConfig } from '../../proxy';

/**
 * Serves this app's catch-all route module (`app/api/[...mediagen]/route.ts`, already imported)
 * over real HTTP the way `next start` serves it, without a build: `proxy.ts` first, where its
 * matcher says (Next's own matcher), then Next's own route module (`AppRouteRouteModule`, which
 * picks the export by method, answers 405 for a method the file does not export and HEAD from
 * GET), with Next's own request and response adapters. Only the router between them is written
 * here: every request under /api goes to the catch-all. For the conformance suites, which run
 * in this process because their options are functions (and it imports `@mediagen/conformance`,
 * so create-mediagen leaves it out of the template with the test).
 */
export async function serveCatchAll(userland: AppRouteUserlandModule) {
  const route = new AppRouteRouteModule({
    definition: {
      kind: 'APP_ROUTE' as AppRouteRouteDefinition['kind'],
      page: '/api/[...mediagen]/route',
      pathname: '/api/[...mediagen]',
      filename: 'route',
      bundlePath: 'app/api/[...mediagen]/route',
    },
    distDir: '.next',
    relativeProjectDir: '',
    resolvedPagePath: 'app/api/[...mediagen]/route.ts',
    nextConfigOutput: undefined,
    userland: () => userland,
  });
  await route.ensureUserland();
  return listen(
    (req, res) =>
      void serve(req, res).catch(() => {
        // As Next does when a route throws: a bare 500, or the end of a response already begun.
        if (!res.headersSent) res.writeHead(500);
        res.end();
      }),
  );

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const segments = (req.url ?? '/').split('?')[0]!.split('/').filter(Boolean);
    if (segments[0] !== 'api' || segments.length < 2) {
      res.writeHead(404).end();
      return;
    }
    const answered = await runProxy(req);
    const nodeReq = new NodeNextRequest(req);
    const nodeRes = new NodeNextResponse(res);
    if (answered instanceof Response) return sendResponse(nodeReq, nodeRes, answered);
    for (const cookie of answered) res.appendHeader('set-cookie', cookie);
    const request = NextRequestAdapter.fromNodeNextRequest(nodeReq, signalFromNodeResponse(res));
    // The context Next's route template gives a route (build/templates/app-route.js), less the
    // caching options ('use cache', revalidation), which no route here uses.
    const response = await route.handle(request, {
      params: { mediagen: segments.slice(1).map(decodeURIComponent) },
      previewProps: { previewModeId: '', previewModeEncryptionKey: '', previewModeSigningKey: '' },
      renderOpts: {
        experimental: { authInterrupts: false },
        cacheComponents: false,
        validationLevel: undefined,
        isDraftMode: false,
        waitUntil: undefined,
        onClose: (callback: () => void) => void res.on('close', callback),
        onAfterTaskError: undefined,
      } as never, // Next's type also wants its caching options, resolved from next.config.
      sharedContext: { buildId: 'conformance', deploymentId: '' },
    });
    await sendResponse(nodeReq, nodeRes, response);
  }
}

/**
 * Runs `proxy.ts` as Next's router does: its own answer ends the request; `NextResponse.next()`
 * goes on with the request headers it set (the user's cookie) and its response headers (the
 * cookie it sets), which are returned.
 */
async function runProxy(req: IncomingMessage): Promise<Response | string[]> {
  const url = `http://${req.headers.host}${req.url}`;
  if (!unstable_doesMiddlewareMatch({ config: proxyConfig, url })) return [];
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(name, value);
  const result = await proxy(new NextRequest(url, { method: req.method, headers }));
  if (result.headers.get('x-middleware-next') !== '1') return result;
  const overridden = result.headers.get('x-middleware-override-headers')?.split(',');
  if (overridden) {
    for (const name of Object.keys(req.headers)) if (!overridden.includes(name)) delete req.headers[name];
    for (const name of overridden) req.headers[name] = result.headers.get(`x-middleware-request-${name}`) ?? undefined;
  }
  return result.headers.getSetCookie();
}
