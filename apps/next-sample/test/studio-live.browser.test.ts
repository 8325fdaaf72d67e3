import { createServer, type IncomingMessage, request, type Server, type ServerResponse } from 'node:http';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, FLAGS, requireChromium } from './support/chromium';
import { freePort, type Stack, startStack } from './support/stack';

/**
 * The studio's cards follow their generations by the event stream, in Chromium against
 * `next start` and a real emulator. Browser and webhook both go through a proxy here that can
 * cut the event streams, and the emulator keeps a `[[hold]]` generation in flight until
 * released, so the test decides the order of events instead of racing a clock.
 */
interface Proxy {
  origin: string;
  /** Requests seen, by path (query and all). */
  seen: { path: string; lastEventId: string | undefined }[];
  /** Destroys every open event stream (as a proxy that drops idle connections would) and holds new ones until `releaseStreams()`. */
  cutStreams(): number;
  releaseStreams(): void;
  openStreams(): number;
  heldStreams(): number;
  /** The studio's answer to each webhook delivery, in order. */
  webhookAnswers: number[];
  close(): Promise<void>;
}

async function startProxy(port: number, target: () => string): Promise<Proxy> {
  const streams = new Set<ServerResponse>();
  let holdingStreams = false;
  const heldStreams: (() => void)[] = [];
  const proxy: Proxy = {
    origin: `http://127.0.0.1:${port}`,
    seen: [],
    webhookAnswers: [],
    cutStreams: () => {
      holdingStreams = true;
      const n = streams.size;
      for (const res of streams) res.destroy();
      streams.clear();
      return n;
    },
    releaseStreams: () => {
      holdingStreams = false;
      for (const go of heldStreams.splice(0)) go();
    },
    openStreams: () => streams.size,
    heldStreams: () => heldStreams.length,
    close: () => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
  const forward = (req: IncomingMessage, res: ServerResponse, body: Buffer, stream: boolean) => {
    const upstream = request(`${target()}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
      if (req.url?.startsWith('/api/webhooks/')) proxy.webhookAnswers.push(answer.statusCode ?? 0);
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      if (stream) {
        streams.add(res);
        res.on('close', () => {
          streams.delete(res);
          answer.destroy();
        });
      }
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    upstream.end(body);
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      const lastEventId = req.headers['last-event-id'];
      proxy.seen.push({ path, lastEventId: typeof lastEventId === 'string' ? lastEventId : undefined });
      const body = Buffer.concat(chunks);
      const stream = /^\/api\/generations\/[^/]+\/events/.test(path);
      const go = () => forward(req, res, body, stream);
      if (stream && holdingStreams) heldStreams.push(go);
      else go();
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return proxy;
}

describe('the studio follows generations live (Chromium, next start, real emulator)', () => {
  let stack: Stack;
  let proxy: Proxy;
  let browser: Browser;

  beforeAll(async () => {
    requireChromium();
    const port = await freePort();
    proxy = await startProxy(port, () => stack.origin);
    stack = await startStack({ webhookUrl: `http://127.0.0.1:${port}/api/webhooks/mediagen` });
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });
  });
  afterAll(async () => {
    await browser?.close();
    await stack?.close();
    await proxy?.close();
  });

  async function open(context: { newPage(): Promise<Page> } = browser): Promise<Page> {
    const page = await context.newPage();
    await page.goto(`${proxy.origin}/`);
    return page;
  }
  const statusReads = (id: string) => proxy.seen.filter((r) => r.path.split('?')[0] === `/api/generations/${id}`);
  const streamsOf = (id: string) => proxy.seen.filter((r) => r.path.startsWith(`/api/generations/${id}/events`));

  async function submit(page: Page, prompt: string): Promise<string> {
    await page.fill('#param-prompt', prompt);
    await page.click('#submit');
    const card = page.locator('#list li').filter({ hasText: prompt }).first();
    await card.waitFor({ timeout: 20_000 });
    return (await card.getAttribute('data-id'))!;
  }

  it('a generation appears live by the event stream: no status read while the stream is healthy', async () => {
    const page = await open();
    const id = await submit(page, 'a lighthouse, live');
    const image = page.locator(`#list li[data-id="${id}"][data-status="completed"] img`);
    await image.waitFor({ timeout: 30_000 });
    await expect.poll(() => image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBeGreaterThan(0);
    expect(streamsOf(id).length).toBeGreaterThanOrEqual(1);
    expect(statusReads(id)).toEqual([]);
    await page.close();
  });

  it('the stream cut mid-way reopens with Last-Event-ID and the card still reaches its terminal state', async () => {
    const page = await open();
    try {
      // `[[hold]]`: the emulator keeps the generation processing until released, so the cut
      // lands mid-way by construction (the studio's own poll of the service cannot finish it first).
      const id = await submit(page, 'a harbour, cut mid-way [[hold]]');
      expect(await stack.emulator.faults.held({ min: 1 })).toEqual([expect.objectContaining({ endpoint: 'render', generation_id: id })]);
      // The stream told the card the job started (an event with an id): the stream is open.
      await page.locator(`#list li[data-id="${id}"][data-status="processing"]`).waitFor({ timeout: 30_000 });
      // Cut every stream; the reconnect waits at the proxy until the completion has landed.
      expect(proxy.cutStreams()).toBeGreaterThanOrEqual(1);
      await expect.poll(() => proxy.heldStreams(), { timeout: 20_000 }).toBeGreaterThanOrEqual(1);
      const answered = proxy.webhookAnswers.length;
      expect(await stack.emulator.faults.release()).toBe(1);
      await expect.poll(() => proxy.webhookAnswers.length, { timeout: 20_000 }).toBeGreaterThan(answered);
      expect(proxy.webhookAnswers.at(-1)).toBe(200);
      proxy.releaseStreams();
      // What changed while no stream was open reaches the card: the terminal state, with its image.
      const image = page.locator(`#list li[data-id="${id}"][data-status="completed"] img`);
      await image.waitFor({ timeout: 30_000 });
      await expect.poll(() => image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBeGreaterThan(0);
      const reopened = streamsOf(id).slice(1);
      expect(reopened.length).toBeGreaterThanOrEqual(1);
      expect(reopened[0]!.lastEventId).toEqual(expect.any(String));
      // One cut is not a reason to poll.
      expect(statusReads(id)).toEqual([]);
    } finally {
      await stack.emulator.faults.release();
      proxy.releaseStreams();
      await page.close();
    }
  });

  it("a second user (another browser, another cookie) cannot stream the first user's generation: 404", async () => {
    const page = await open();
    const id = await submit(page, 'a garden, mine only');
    const streamStatus = (p: Page, generation: string) =>
      p.evaluate(async (g) => {
        const res = await fetch(`/api/generations/${g}/events`, { headers: { accept: 'text/event-stream' } });
        const answer = { status: res.status, type: res.headers.get('content-type') };
        await res.body?.cancel();
        return answer;
      }, generation);
    expect(await streamStatus(page, id)).toEqual({ status: 200, type: expect.stringMatching(/^text\/event-stream/) });

    const other = await browser.newContext();
    try {
      const theirs = await open(other);
      const cookies = await other.cookies(proxy.origin);
      expect(cookies.map((c) => c.name)).toEqual(['mediagen_user']);
      expect(await streamStatus(theirs, id)).toEqual({ status: 404, type: expect.stringMatching(/^application\/json/) });
      // Nor its status.
      expect(await theirs.evaluate(async (g) => (await fetch(`/api/generations/${g}`)).status, id)).toBe(404);
      await theirs.close();
    } finally {
      await other.close();
    }
    await page.close();
  });
});
