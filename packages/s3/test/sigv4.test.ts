import { describe, expect, it } from 'vitest';
import { EMPTY_SHA256, SigV4Signer, sha256Hex } from '../src/sigv4';
// @ts-expect-error: a plain JS module of the test server, without types
import { verify } from './support/sigv4-verify.mjs';

// AWS's worked examples ("Signature Calculations for the Authorization Header" and "Authenticating
// Requests: Using Query Parameters", Amazon S3 API Reference), with AWS's documented example keys.
const EXAMPLE = { accessKeyId: 'AKIAIOSFODNN7EXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY' };
const AT = new Date('2013-05-24T00:00:00Z');
const signer = new SigV4Signer(EXAMPLE, 'us-east-1');
const signatureOf = (headers: Record<string, string>) => /Signature=([0-9a-f]{64})$/.exec(headers.authorization ?? '')?.[1];

describe('SigV4 signer (Web Crypto), against AWS worked examples', () => {
  it('GET Object with a Range header', async () => {
    const headers = await signer.signHeaders(
      {
        method: 'GET',
        url: new URL('https://examplebucket.s3.amazonaws.com/test.txt'),
        headers: { range: 'bytes=0-9' },
        payloadHash: EMPTY_SHA256,
      },
      AT,
    );
    expect(headers.authorization).toContain('SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,');
    expect(signatureOf(headers)).toBe('f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41');
  });

  it('PUT Object, a key with a character to encode and a signed Date header', async () => {
    const body = 'Welcome to Amazon S3.';
    const headers = await signer.signHeaders(
      {
        method: 'PUT',
        url: new URL('https://examplebucket.s3.amazonaws.com/test%24file.text'),
        headers: { date: 'Fri, 24 May 2013 00:00:00 GMT', 'x-amz-storage-class': 'REDUCED_REDUNDANCY' },
        payloadHash: await sha256Hex(body),
      },
      AT,
    );
    expect(signatureOf(headers)).toBe('98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd');
  });

  it('GET Bucket Lifecycle (a query parameter with no value) and List Objects (sorted query)', async () => {
    const lifecycle = await signer.signHeaders(
      { method: 'GET', url: new URL('https://examplebucket.s3.amazonaws.com/?lifecycle'), payloadHash: EMPTY_SHA256 },
      AT,
    );
    expect(signatureOf(lifecycle)).toBe('fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543');
    const list = await signer.signHeaders(
      { method: 'GET', url: new URL('https://examplebucket.s3.amazonaws.com/?max-keys=2&prefix=J'), payloadHash: EMPTY_SHA256 },
      AT,
    );
    expect(signatureOf(list)).toBe('34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7');
  });

  it('a presigned GET URL', async () => {
    const url = await signer.presign(
      { method: 'GET', url: new URL('https://examplebucket.s3.amazonaws.com/test.txt'), expiresIn: 86400 },
      AT,
    );
    expect(url).toBe(
      'https://examplebucket.s3.amazonaws.com/test.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256' +
        '&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20130524T000000Z' +
        '&X-Amz-Expires=86400&X-Amz-SignedHeaders=host' +
        '&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404',
    );
  });

  it('a session token is sent (header) or carried in the query (presigned), and signed', async () => {
    const withToken = new SigV4Signer({ ...EXAMPLE, sessionToken: 'token/with+chars=' }, 'auto');
    const headers = await withToken.signHeaders({ method: 'GET', url: new URL('https://r2.example/b/k'), payloadHash: EMPTY_SHA256 }, AT);
    expect(headers['x-amz-security-token']).toBe('token/with+chars=');
    expect(headers.authorization).toContain('x-amz-security-token');
    const url = new URL(await withToken.presign({ method: 'GET', url: new URL('https://r2.example/b/k'), expiresIn: 60 }, AT));
    expect(url.searchParams.get('X-Amz-Security-Token')).toBe('token/with+chars=');
    expect(url.searchParams.get('X-Amz-Credential')).toBe('AKIAIOSFODNN7EXAMPLE/20130524/auto/s3/aws4_request');
  });
});

describe("the test server's verifier (node:crypto), against the same examples", () => {
  const common = { secret: EXAMPLE.secretAccessKey, keyId: EXAMPLE.accessKeyId, now: AT.getTime() };
  it('takes the presigned example, and refuses it tampered or expired', () => {
    const rawQuery =
      'X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request' +
      '&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host' +
      '&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404';
    const request = { method: 'GET', rawPath: '/test.txt', rawQuery, headers: { host: 'examplebucket.s3.amazonaws.com' } };
    expect(verify({ ...request, ...common })).toBeUndefined();
    expect(verify({ ...request, ...common, rawQuery: rawQuery.replace(/4$/, '5') })?.[0]).toBe('SignatureDoesNotMatch');
    expect(verify({ ...request, ...common, rawPath: '/test2.txt' })?.[0]).toBe('SignatureDoesNotMatch');
    expect(verify({ ...request, ...common, now: AT.getTime() + 86_401_000 })?.[0]).toBe('AccessDenied');
  });

  it('takes the header-signed PUT example, and refuses a body that is not the one hashed', () => {
    const request = {
      method: 'PUT',
      rawPath: '/test%24file.text',
      rawQuery: '',
      headers: {
        host: 'examplebucket.s3.amazonaws.com',
        date: 'Fri, 24 May 2013 00:00:00 GMT',
        'x-amz-date': '20130524T000000Z',
        'x-amz-storage-class': 'REDUCED_REDUNDANCY',
        'x-amz-content-sha256': '44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072',
        authorization:
          'AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,SignedHeaders=date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class,Signature=98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd',
      },
      bodyHash: '44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072',
    };
    expect(verify({ ...request, ...common })).toBeUndefined();
    expect(verify({ ...request, ...common, bodyHash: '0'.repeat(64) })?.[0]).toBe('XAmzContentSHA256Mismatch');
    expect(verify({ ...request, ...common, headers: { ...request.headers, 'x-amz-storage-class': 'STANDARD' } })?.[0]).toBe(
      'SignatureDoesNotMatch',
    );
  });
});
