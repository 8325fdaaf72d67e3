// An S3 SigV4 verifier (header-signed and presigned requests), written with node:crypto,
// independently of the package's Web Crypto signer; used by the strict front of s3-server.mjs and
// checked against AWS's own worked examples (test/sigv4.test.ts).
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

const encode = (value) => encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
export const sha256 = (data) => createHash('sha256').update(data).digest('hex');
const hmac = (key, data) => createHmac('sha256', key).update(data).digest();

/** The raw query as pairs, decoded (S3 decodes, then the canonical form re-encodes). */
export function queryPairs(raw) {
  if (!raw) return [];
  return raw.split('&').map((part) => {
    const i = part.indexOf('=');
    const [k, v] = i < 0 ? [part, ''] : [part.slice(0, i), part.slice(i + 1)];
    return [decodeURIComponent(k), decodeURIComponent(v)];
  });
}

function canonicalQuery(pairs) {
  return pairs
    .map(([k, v]) => [encode(k), encode(v)])
    .sort(([ak, av], [bk, bv]) => (ak < bk ? -1 : ak > bk ? 1 : av < bv ? -1 : av > bv ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
}

/** Why the request is refused (`[code, message]`, as S3 says it), or undefined when its signature holds. */
export function verify({ method, rawPath, rawQuery, headers, bodyHash, now, secret, keyId }) {
  const pairs = queryPairs(rawQuery);
  const query = new Map(pairs);
  let credential;
  let signedHeaders;
  let signature;
  let stamp;
  let payloadHash;
  let canonicalPairs = pairs;
  if (query.has('X-Amz-Signature')) {
    if (query.get('X-Amz-Algorithm') !== 'AWS4-HMAC-SHA256') return ['AuthorizationQueryParametersError', 'bad algorithm'];
    credential = query.get('X-Amz-Credential') ?? '';
    signedHeaders = query.get('X-Amz-SignedHeaders') ?? '';
    signature = query.get('X-Amz-Signature') ?? '';
    stamp = query.get('X-Amz-Date') ?? '';
    const expires = Number(query.get('X-Amz-Expires'));
    if (!Number.isInteger(expires) || expires < 1 || expires > 604800)
      return ['AuthorizationQueryParametersError', 'X-Amz-Expires out of range'];
    const signedAt = Date.parse(stamp.replace(/^(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z$/, '$1-$2-$3T$4:$5:$6Z'));
    if (Number.isNaN(signedAt)) return ['AuthorizationQueryParametersError', 'bad X-Amz-Date'];
    if (now > signedAt + expires * 1000) return ['AccessDenied', 'Request has expired'];
    if (signedAt > now + 15 * 60 * 1000) return ['AccessDenied', 'Request is not valid yet'];
    payloadHash = 'UNSIGNED-PAYLOAD';
    canonicalPairs = pairs.filter(([k]) => k !== 'X-Amz-Signature');
  } else if (headers.authorization) {
    const match = /^AWS4-HMAC-SHA256 Credential=([^,]+), ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]{64})$/.exec(headers.authorization);
    if (!match) return ['AuthorizationHeaderMalformed', 'malformed authorization'];
    [, credential, signedHeaders, signature] = match;
    stamp = headers['x-amz-date'] ?? '';
    payloadHash = headers['x-amz-content-sha256'];
    if (!payloadHash) return ['InvalidRequest', 'Missing required header for this request: x-amz-content-sha256'];
    if (payloadHash !== 'UNSIGNED-PAYLOAD' && bodyHash !== undefined && payloadHash !== bodyHash)
      return ['XAmzContentSHA256Mismatch', 'The provided x-amz-content-sha256 header does not match what was computed.'];
    const signedAt = Date.parse(stamp.replace(/^(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z$/, '$1-$2-$3T$4:$5:$6Z'));
    if (Number.isNaN(signedAt) || Math.abs(now - signedAt) > 15 * 60 * 1000) return ['RequestTimeTooSkewed', 'bad or skewed x-amz-date'];
  } else {
    return ['AccessDenied', 'Anonymous access is refused'];
  }
  const [key, date, region, service, terminal] = credential.split('/');
  if (key !== keyId) return ['InvalidAccessKeyId', 'The AWS Access Key Id you provided does not exist in our records.'];
  if (date !== stamp.slice(0, 8) || service !== 's3' || terminal !== 'aws4_request')
    return ['AuthorizationHeaderMalformed', 'bad credential scope'];
  const names = signedHeaders.split(';');
  if (!names.includes('host')) return ['AccessDenied', 'host must be signed'];
  for (const name of names) if (headers[name] === undefined) return ['AccessDenied', `signed header ${name} missing`];
  const canonicalHeaders = names.map((n) => `${n}:${String(headers[n]).trim().replace(/\s+/g, ' ')}\n`).join('');
  const canonicalRequest = [method, rawPath, canonicalQuery(canonicalPairs), canonicalHeaders, signedHeaders, payloadHash].join('\n');
  const scope = `${date}/${region}/${service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', stamp, scope, sha256(canonicalRequest)].join('\n');
  let k = hmac(`AWS4${secret}`, date);
  for (const part of [region, service, 'aws4_request']) k = hmac(k, part);
  const expected = hmac(k, stringToSign).toString('hex');
  if (expected.length !== signature.length || !timingSafeEqual(Buffer.from(expected), Buffer.from(signature)))
    return ['SignatureDoesNotMatch', 'The request signature we calculated does not match the signature you provided.'];
  return undefined;
}
