import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { type ClientRequest, request as httpRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { BlockList, isIP } from 'node:net';
import { INPUT_KINDS, INPUT_MAX_BYTES, type InputKind } from '@mediagen/core/wire';

/**
 * What the service does with an input link when a generation starts: fetch it (https only,
 * public addresses only, bounded in time and size), then read what kind of media it is from its
 * bytes. An input URL is hostile input: every hop of a redirect is checked again, and the address
 * a name resolves to is checked on the connection that uses it (no second lookup to rebind).
 */

export type { InputKind };
export { INPUT_KINDS };
/** Per-kind size limits: core's (`INPUT_MAX_BYTES`), the same the app's upload route enforces. */
export const DEFAULT_INPUT_MAX_BYTES = INPUT_MAX_BYTES;
/** Time to fetch one input, redirects included. */
export const DEFAULT_INPUT_TIMEOUT_MS = 10_000;
/** Redirects followed per input, each hop checked as the first. */
export const MAX_INPUT_REDIRECTS = 3;
/** Bytes of a video or audio input kept to read its kind; the rest is counted, never kept. */
const HEAD_BYTES = 64 * 1024;

export type Lookup = typeof dnsLookup;

export interface InputPolicy {
  /** `allowLoopbackInputs`: `http:` (and `https:`) links on 127.0.0.0/8, ::1 and localhost. */
  allowLoopback: boolean;
  timeoutMs: number;
  maxBytes: Readonly<Record<InputKind, number>>;
  /** Name resolution; tests give a fake one to show what a name resolving to a private address gets. */
  lookup?: Lookup;
}

/** Why an input could not be used; `retryable` when the same link may work later (a timeout, a 5xx). */
export class InputError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
  }
}

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/**
 * Everything that is not a public unicast address: this network, RFC 1918, carrier-grade NAT,
 * link-local (cloud metadata at 169.254.169.254), documentation and benchmark ranges, multicast,
 * reserved, broadcast; IPv6 unspecified, ULA, link-local, site-local, multicast, documentation,
 * and the translation prefixes that can carry an IPv4 address inside (NAT64, 6to4, Teredo).
 * IPv4-mapped IPv6 (`::ffff:10.0.0.1`) is matched by the IPv4 rules (BlockList does this).
 */
const NON_PUBLIC = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  NON_PUBLIC.addSubnet(net, bits, 'ipv4');
}
for (const [net, bits] of [
  ['::', 128],
  ['::', 96], // IPv4-compatible (deprecated)
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001::', 32],
  ['2001:db8::', 32],
  ['2002::', 16],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  NON_PUBLIC.addSubnet(net, bits, 'ipv6');
}

export type AddressClass = 'public' | 'loopback' | 'private';

/** The class of an IP address literal (without brackets). */
export function addressClass(ip: string): AddressClass {
  const family = isIP(ip);
  if (family === 0) return 'private';
  const type = family === 4 ? 'ipv4' : 'ipv6';
  if (LOOPBACK.check(ip, type)) return 'loopback';
  return NON_PUBLIC.check(ip, type) ? 'private' : 'public';
}

const bare = (hostname: string): string => (hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname);
const isLoopbackName = (host: string): boolean => host === 'localhost' || host.endsWith('.localhost');

/**
 * What is wrong with an input link as written, or null. The checks the link itself allows:
 * the scheme (`https:`; `http:` only on loopback with `allowLoopback`), and a host that is an
 * address (or `localhost`) outside the public internet. A name is checked again once resolved.
 */
export function linkProblem(value: string, allowLoopback: boolean): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'is not a URL';
  }
  const host = bare(url.hostname);
  const cls = isIP(host) !== 0 ? addressClass(host) : isLoopbackName(host.toLowerCase()) ? 'loopback' : null;
  if (cls === 'private') return 'names a private, link-local or reserved address, not a public one';
  if (cls === 'loopback' && !allowLoopback) {
    return 'names a loopback address (the emulator fetches those only with allowLoopbackInputs / --allow-loopback-inputs)';
  }
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:' && cls === 'loopback') return null;
  return allowLoopback ? 'is not https (http is allowed on loopback only)' : 'is not https';
}

/** A lookup that refuses names resolving to an address the policy does not allow. */
function guardedLookup(policy: InputPolicy): Lookup {
  const base = policy.lookup ?? dnsLookup;
  const guarded = (hostname: string, options: unknown, callback?: unknown): void => {
    const cb = (typeof options === 'function' ? options : callback) as (
      err: NodeJS.ErrnoException | null,
      address?: string | LookupAddress[],
      family?: number,
    ) => void;
    const opts = (typeof options === 'object' && options !== null ? options : {}) as { all?: boolean; family?: number };
    base(hostname, { family: opts.family ?? 0, all: true }, (err, addresses) => {
      if (err) return cb(err);
      const list = addresses as LookupAddress[];
      const loopbackName = isLoopbackName(hostname.toLowerCase());
      for (const a of list) {
        const cls = addressClass(a.address);
        const ok = cls === 'public' ? !loopbackName : cls === 'loopback' && policy.allowLoopback;
        if (!ok) {
          const e = new InputError(
            `${hostname} resolves to ${a.address}, a ${cls === 'public' ? 'public' : cls} address the service does not fetch`,
            false,
          );
          return cb(Object.assign(e, { code: 'EINPUTREFUSED' }));
        }
      }
      const first = list[0];
      if (!first) return cb(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }));
      if (opts.all) cb(null, list);
      else cb(null, first.address, first.family);
    });
  };
  return guarded as unknown as Lookup;
}

export interface Fetched {
  /** The whole body for images (at most the limit); the first 64 KB for video and audio. */
  bytes: Buffer;
  /** Bytes received in all. */
  size: number;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

function describe(e: unknown, timeoutMs: number, timedOut: boolean): InputError {
  if (e instanceof InputError) return e;
  if (timedOut) return new InputError(`the download did not finish within ${timeoutMs} ms`, true);
  const err = e as NodeJS.ErrnoException;
  if (err?.code === 'EINPUTREFUSED') return new InputError(err.message, false);
  const code = err?.code ? `${err.code}` : (err?.message ?? 'unknown error');
  return new InputError(`the download failed (${code})`, true);
}

/**
 * Downloads one input link by the policy: at most `maxBytes[kind]` bytes are read (a
 * `Content-Length` above it is refused before the body), the whole fetch ends by `timeoutMs`,
 * redirects are followed up to 3 times with each hop checked as the first. Aborts with `signal`.
 */
export async function fetchInput(link: string, kind: InputKind, policy: InputPolicy, signal?: AbortSignal): Promise<Fetched> {
  const timer = new AbortController();
  let timedOut = false;
  const t = setTimeout(() => {
    timedOut = true;
    timer.abort();
  }, policy.timeoutMs);
  const all = signal ? AbortSignal.any([signal, timer.signal]) : timer.signal;
  try {
    let current = link;
    for (let hop = 0; ; hop++) {
      const problem = linkProblem(current, policy.allowLoopback);
      if (problem) throw new InputError(hop === 0 ? `the link ${problem}` : `it redirects to a link that ${problem}`, false);
      const res = await get(current, policy, all);
      const status = res.statusCode ?? 0;
      if (REDIRECTS.has(status)) {
        res.destroy();
        const location = res.headers.location;
        if (!location) throw new InputError(`the link answered ${status} without a Location`, false);
        if (hop >= MAX_INPUT_REDIRECTS) throw new InputError(`the link redirects more than ${MAX_INPUT_REDIRECTS} times`, false);
        current = new URL(location, current).href;
        continue;
      }
      if (status !== 200) {
        res.destroy();
        throw new InputError(`the link answered HTTP ${status}`, status >= 500 || status === 408 || status === 429);
      }
      return await readBody(res, kind, policy.maxBytes[kind]);
    }
  } catch (e) {
    throw describe(e, policy.timeoutMs, timedOut);
  } finally {
    clearTimeout(t);
  }
}

function get(link: string, policy: InputPolicy, signal: AbortSignal): Promise<IncomingMessage> {
  const url = new URL(link);
  const options: RequestOptions = {
    method: 'GET',
    signal,
    agent: false,
    lookup: guardedLookup(policy),
    headers: { 'user-agent': 'MediaGen-Emulator-Input/1.0', accept: '*/*', 'accept-encoding': 'identity' },
  };
  return new Promise((resolve, reject) => {
    let req: ClientRequest;
    try {
      req = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, options, resolve);
    } catch (e) {
      reject(e);
      return;
    }
    req.once('error', reject);
    req.end();
  });
}

async function readBody(res: IncomingMessage, kind: InputKind, limit: number): Promise<Fetched> {
  const declared = res.headers['content-length'];
  if (declared !== undefined && Number(declared) > limit) {
    res.destroy();
    throw new InputError(`the ${kind} is ${declared} bytes, over the ${limit}-byte limit for ${kind} inputs`, false);
  }
  const keep = kind === 'image' ? limit : HEAD_BYTES;
  const chunks: Buffer[] = [];
  let kept = 0;
  let size = 0;
  for await (const chunk of res as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      res.destroy();
      throw new InputError(`the ${kind} is over the ${limit}-byte limit for ${kind} inputs`, false);
    }
    if (kept < keep) {
      const part = chunk.subarray(0, keep - kept);
      chunks.push(part);
      kept += part.length;
    }
  }
  if (!res.complete) throw new InputError('the download ended before the body was complete', true);
  return { bytes: Buffer.concat(chunks), size };
}
