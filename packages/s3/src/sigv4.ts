/**
 * AWS Signature Version 4 for S3, on Web Crypto only (`crypto.subtle` HMAC-SHA256 and SHA-256), so
 * it runs wherever `fetch` does: Node 20+, Bun, Deno, edge runtimes. Two forms:
 *
 * - `signHeaders`: the `Authorization` header of a request the store sends itself;
 * - `presign`: a query-string signed URL (a link, a browser's upload), valid for `expiresIn` seconds.
 *
 * The canonical request is built from what is sent: the URL's path exactly as it will go on the wire
 * (the caller encodes each key segment with `encodeRfc3986`; S3 does not re-normalise it), the query
 * re-encoded and sorted, the signed headers lower-cased, trimmed and sorted.
 */

export interface SigV4Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string | undefined;
}

export interface SignableRequest {
  method: string;
  url: URL;
  /** Headers to sign (besides `host`, which is always signed). Lower- or mixed-case names. */
  headers?: Record<string, string>;
}

/** The payload hash of a request whose body is streamed unread (S3 accepts it over TLS and plain HTTP alike). */
export const UNSIGNED_PAYLOAD = 'UNSIGNED-PAYLOAD';
/** SHA-256 of the empty body. */
export const EMPTY_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

const ALGORITHM = 'AWS4-HMAC-SHA256';
const encoder = new TextEncoder();

/** Percent-encodes everything but the unreserved characters (A-Z a-z 0-9 - . _ ~), as SigV4 asks. */
export function encodeRfc3986(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** `20130524T000000Z` */
export function amzDate(now: Date): string {
  return now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
}

function toHex(bytes: ArrayBuffer): string {
  let out = '';
  for (const byte of new Uint8Array(bytes)) out += byte.toString(16).padStart(2, '0');
  return out;
}

export async function sha256Hex(data: string | Uint8Array): Promise<string> {
  const bytes = typeof data === 'string' ? encoder.encode(data) : data;
  return toHex(await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>));
}

async function hmac(key: ArrayBuffer | Uint8Array, data: string): Promise<ArrayBuffer> {
  const cryptoKey = await crypto.subtle.importKey('raw', key as Uint8Array<ArrayBuffer>, { name: 'HMAC', hash: 'SHA-256' }, false, [
    'sign',
  ]);
  return crypto.subtle.sign('HMAC', cryptoKey, encoder.encode(data));
}

/** The query, decoded then re-encoded per SigV4 and sorted by name (then value). */
function canonicalQuery(params: URLSearchParams): string {
  return [...params]
    .map(([k, v]) => [encodeRfc3986(k), encodeRfc3986(v)] as const)
    .sort(([ak, av], [bk, bv]) => (ak < bk ? -1 : ak > bk ? 1 : av < bv ? -1 : av > bv ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
}

function canonicalHeaders(url: URL, headers: Record<string, string>): { canonical: string; signed: string } {
  const all = new Map<string, string>([['host', url.host]]);
  for (const [name, value] of Object.entries(headers)) all.set(name.toLowerCase(), String(value).trim().replace(/\s+/g, ' '));
  const names = [...all.keys()].sort();
  return { canonical: names.map((n) => `${n}:${all.get(n)}\n`).join(''), signed: names.join(';') };
}

/**
 * A signer for one set of credentials, region and service. The secret stays in a private field
 * (never in `JSON.stringify`, `util.inspect` or an error); the day's signing key is derived once
 * a day and kept on this object only.
 */
export class SigV4Signer {
  readonly #credentials: SigV4Credentials;
  readonly #region: string;
  readonly #service: string;
  #signingKey: { date: string; key: ArrayBuffer } | undefined;

  constructor(credentials: SigV4Credentials, region: string, service = 's3') {
    this.#credentials = { ...credentials };
    this.#region = region;
    this.#service = service;
  }

  get accessKeyId(): string {
    return this.#credentials.accessKeyId;
  }

  async #key(date: string): Promise<ArrayBuffer> {
    if (this.#signingKey?.date === date) return this.#signingKey.key;
    let key = await hmac(encoder.encode(`AWS4${this.#credentials.secretAccessKey}`), date);
    for (const part of [this.#region, this.#service, 'aws4_request']) key = await hmac(key, part);
    this.#signingKey = { date, key };
    return key;
  }

  #scope(date: string): string {
    return `${date}/${this.#region}/${this.#service}/aws4_request`;
  }

  async #signature(method: string, url: URL, query: URLSearchParams, headers: Record<string, string>, payloadHash: string, now: Date) {
    const stamp = amzDate(now);
    const date = stamp.slice(0, 8);
    const { canonical, signed } = canonicalHeaders(url, headers);
    const canonicalRequest = [method.toUpperCase(), url.pathname || '/', canonicalQuery(query), canonical, signed, payloadHash].join('\n');
    const stringToSign = [ALGORITHM, stamp, this.#scope(date), await sha256Hex(canonicalRequest)].join('\n');
    return { signature: toHex(await hmac(await this.#key(date), stringToSign)), signed, date };
  }

  /**
   * The headers to send with `request`: the given ones plus `x-amz-date`, `x-amz-content-sha256`,
   * `x-amz-security-token` (with temporary credentials) and `authorization`.
   */
  async signHeaders(request: SignableRequest & { payloadHash: string }, now: Date): Promise<Record<string, string>> {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(request.headers ?? {})) headers[name.toLowerCase()] = value;
    headers['x-amz-date'] = amzDate(now);
    headers['x-amz-content-sha256'] = request.payloadHash;
    if (this.#credentials.sessionToken) headers['x-amz-security-token'] = this.#credentials.sessionToken;
    const { signature, signed, date } = await this.#signature(
      request.method,
      request.url,
      request.url.searchParams,
      headers,
      request.payloadHash,
      now,
    );
    headers.authorization = `${ALGORITHM} Credential=${this.#credentials.accessKeyId}/${this.#scope(date)}, SignedHeaders=${signed}, Signature=${signature}`;
    return headers;
  }

  /**
   * A presigned URL for `request` valid `expiresIn` seconds from `now` (S3 takes 1 to 604800).
   * The headers given are signed, so whoever uses the URL must send them with exactly these values.
   */
  async presign(request: SignableRequest & { expiresIn: number }, now: Date): Promise<string> {
    const url = new URL(request.url);
    const query = new URLSearchParams(url.search);
    const headers = request.headers ?? {};
    const names = ['host', ...Object.keys(headers).map((n) => n.toLowerCase())].sort();
    query.set('X-Amz-Algorithm', ALGORITHM);
    query.set('X-Amz-Credential', `${this.#credentials.accessKeyId}/${this.#scope(amzDate(now).slice(0, 8))}`);
    query.set('X-Amz-Date', amzDate(now));
    query.set('X-Amz-Expires', String(request.expiresIn));
    query.set('X-Amz-SignedHeaders', names.join(';'));
    if (this.#credentials.sessionToken) query.set('X-Amz-Security-Token', this.#credentials.sessionToken);
    const { signature } = await this.#signature(request.method, url, query, headers, UNSIGNED_PAYLOAD, now);
    // The query as signed (the same encoding), the signature last.
    url.search = `${canonicalQuery(query)}&X-Amz-Signature=${signature}`;
    return url.toString();
  }
}
