import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FileMediaStore } from './file-media-store';
import { sendWebResponse } from './send-response';
import { toWebRequest } from './web-request';

/** A `FileMediaStore` whose links this process serves on 127.0.0.1; `close` when the work ends. */
export interface LoopbackMedia {
  store: FileMediaStore;
  /** The links' origin and path: `http://127.0.0.1:<port>/uploads`. */
  url: string;
  close(): Promise<void>;
}

/**
 * For tools on a developer's machine against the local emulator (the CLI, the MCP server over
 * stdio): files kept in `directory` (the same file is one object, and one link), their links served
 * by this process on 127.0.0.1, where the emulator started with `--allow-loopback-inputs` fetches
 * them when a generation starts. Only `GET`/`HEAD` of a signed link under `/uploads/` is answered
 * (the store checks the signature and expiry). The port the folder used last is taken again when
 * it is free, so a resubmit with the same idempotency key sends the same links. The server does
 * not keep the process alive by itself (`unref`): a caller that must serve until a generation
 * starts waits on it. The real service fetches only public https links: use a bucket there.
 */
export async function serveLoopbackMedia(directory: string): Promise<LoopbackMedia> {
  await mkdir(directory, { recursive: true, mode: 0o700 });
  let store: FileMediaStore | undefined;
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
    let key: string;
    try {
      key = decodeURIComponent(path.replace(/^\/uploads\//, ''));
    } catch {
      return void res.writeHead(404).end();
    }
    if ((req.method !== 'GET' && req.method !== 'HEAD') || !store || !path.startsWith('/uploads/')) return void res.writeHead(404).end();
    void store
      .respond(key, toWebRequest(req))
      .then((response) => sendWebResponse(res, response))
      .catch(() => (res.headersSent ? res.destroy() : res.writeHead(500).end()));
  });
  const portFile = `${directory}/.port`;
  const last = Number(await readFile(portFile, 'utf8').catch(() => ''));
  const listen = (port: number) =>
    new Promise<number>((ok, fail) => {
      server.once('error', fail);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', fail);
        ok((server.address() as AddressInfo).port);
      });
    });
  const port = await (Number.isInteger(last) && last > 1023 && last < 65536 ? listen(last).catch(() => listen(0)) : listen(0));
  if (port !== last) await writeFile(portFile, String(port), { mode: 0o600 });
  server.unref();
  const url = `http://127.0.0.1:${port}/uploads`;
  store = new FileMediaStore({ directory, url });
  return { store, url, close: () => new Promise<void>((done) => server.close(() => done())) };
}

/** Whether `url` is on this machine (`localhost`, `127.0.0.0/8`, `::1`): where loopback links can be fetched. */
export function isLoopbackUrl(url: string): boolean {
  let host: string;
  try {
    host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return false;
  }
  return host === 'localhost' || host.endsWith('.localhost') || host === '::1' || /^127(?:\.\d{1,3}){3}$/.test(host);
}
