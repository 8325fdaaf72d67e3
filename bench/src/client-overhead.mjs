// Row 1. Client overhead: generations.get against one minimal local HTTP server (in its own
// process), @mediagen/core vs the floor (a bare fetch with the same headers and JSON.parse)
// and vs the peer SDKs making the same GET against the same server in the same rounds, each
// through its own generic request method (what an app would call for an endpoint the SDK does
// not wrap), with retries off like ours.
import { MediaGenClient } from '@mediagen/core';
import RunwayML from '@runwayml/sdk';
import OpenAI from 'openai';
import Replicate from 'replicate';
import Stripe from 'stripe';
import { here, startChild } from './child.mjs';
import { fmt, interleave, ratio, repeat, summarize } from './measure.mjs';

const TARGET = 1.1;
const KEY = 'svc_live_bench_overhead';
const ID = '3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e5f';
const PEERS = ['openai', '@runwayml/sdk', 'replicate', 'stripe'];

export async function run({ quick }) {
  // Short rounds, many of them: each ratio pairs samples taken milliseconds apart, so a burst
  // of load from elsewhere on the machine skews one round, not the median.
  const rounds = quick ? 30 : 100;
  const perRound = 20; // full: 100 rounds x 20 = 2,000 calls each side, after warm-up rounds
  const server = await startChild(here('./child/minimal-server.mjs'));
  try {
    const { port } = server.info;
    const baseUrl = `http://127.0.0.1:${port}`;
    const path = `/api/v1/generations/${ID}`;
    const url = baseUrl + path;
    const client = new MediaGenClient({ apiKey: KEY, baseUrl, maxRetries: 0 });
    const headers = { authorization: `Bearer ${KEY}`, accept: 'application/json' };
    const peers = {
      openai: new OpenAI({ apiKey: KEY, baseURL: baseUrl, maxRetries: 0 }),
      '@runwayml/sdk': new RunwayML({ apiKey: KEY, baseURL: baseUrl, maxRetries: 0 }),
      replicate: new Replicate({ auth: KEY, baseUrl }),
      // Stripe's fetch client: the like-for-like comparison (core is fetch-only by design, so it
      // runs on edge runtimes). Its default node:http client is measured too, as information.
      stripe: new Stripe(KEY, {
        host: '127.0.0.1',
        port,
        protocol: 'http',
        maxNetworkRetries: 0,
        telemetry: false,
        httpClient: Stripe.createFetchHttpClient(),
      }),
      stripeNodeHttp: new Stripe(KEY, { host: '127.0.0.1', port, protocol: 'http', maxNetworkRetries: 0, telemetry: false }),
    };
    const peerGet = {
      openai: () => peers.openai.get(path),
      '@runwayml/sdk': () => peers['@runwayml/sdk'].get(path),
      replicate: async () => (await peers.replicate.request(path, { method: 'GET' })).json(),
      stripe: () => peers.stripe.rawRequest('GET', path),
      'stripe (node:http)': () => peers.stripeNodeHttp.rawRequest('GET', path),
    };
    let sink = 0;
    const cases = {
      floor: () =>
        repeat(perRound, async () => {
          const res = await fetch(url, { headers });
          const data = JSON.parse(await res.text());
          sink += data.credits_used;
        }),
      ours: () =>
        repeat(perRound, async () => {
          const g = await client.generations.get(ID);
          sink += g.credits_used;
        }),
      ...Object.fromEntries(
        [...PEERS, 'stripe (node:http)'].map((peer) => [
          peer,
          () =>
            repeat(perRound, async () => {
              const g = await peerGet[peer]();
              sink += g.credits_used;
            }),
        ]),
      ),
    };
    const { samples } = await interleave({ cases, rounds, warmup: 10, opsPerSample: perRound });
    const s = summarize(samples, 'floor');
    const r = s.ours.ratioToFloor;
    if (!sink) throw new Error('no work done');
    // ours / peer, round by round: below 1 means ours was faster.
    const vsPeer = Object.fromEntries(PEERS.map((p) => [p, ratio(samples, 'ours', p)]));
    const fastest = PEERS.reduce((a, b) => (s[a].time.median <= s[b].time.median ? a : b));
    const beatsFastest = vsPeer[fastest].median <= 1;
    return {
      rows: [
        {
          id: 'client-overhead',
          what: `Client overhead: generations.get ×${rounds * perRound} (per call)`,
          ours: fmt.timeRange(s.ours.time),
          peers: Object.fromEntries(PEERS.map((p) => [p, `${fmt.time(s[p].time.median)} (${(1 / vsPeer[p].median).toFixed(2)}× ours)`])),
          floor: fmt.timeRange(s.floor.time),
          ratio: `${fmt.ratio(r)}; ${vsPeer[fastest].median.toFixed(2)}× the fastest peer (${fastest})`,
          target: `≤ ${TARGET.toFixed(2)}× floor, no slower than the fastest peer`,
          status: r.median <= TARGET && beatsFastest ? 'pass' : 'miss',
          note: `floor = fetch with the same headers + JSON.parse; peers = each SDK's generic GET (openai/runway .get, replicate .request + .json, stripe .rawRequest with its fetch client), retries off; server in a second process; per-round ratios. For information, stripe on its default node:http client (no fetch): ${fmt.time(s['stripe (node:http)'].time.median)}, ${ratio(samples, 'stripe (node:http)', 'floor').median.toFixed(2)}× the fetch floor`,
        },
      ],
      raw: { rounds, perRound, calls: rounds * perRound, summary: s, oursToPeer: vsPeer, fastestPeer: fastest, samples },
    };
  } finally {
    await server.stop();
  }
}
