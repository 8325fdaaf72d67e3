import { ConfigurationError } from '../errors';
import { parseUrl } from './parse-url';

/**
 * RFC 6750's bearer token characters. A key is refused for anything else (a newline from a
 * copy-paste, a space, a control character): fetch would fail with a message quoting the
 * whole header, and every retry would fail the same. The `svc_live_` prefix is not required:
 * the contract writes the prefix with a neutral word in place of the service's, and a key
 * without the right prefix is the service's to refuse (`401 KEY_INVALID`).
 */
const BEARER_TOKEN = /^[\w\-.~+/]{1,512}=*$/;

/** The key, checked; the error never quotes it (not even a part of it). */
export function checkApiKey(apiKey: unknown): string {
  // Empty is missing, not malformed: the client fails each request for it instead.
  if (apiKey !== '' && (typeof apiKey !== 'string' || !BEARER_TOKEN.test(apiKey))) {
    throw new ConfigurationError('The API key is malformed (a line break, a space?): copy it again.');
  }
  return apiKey;
}

/**
 * An http(s) URL without credentials, trailing slashes dropped. A URL carrying `user:password@`
 * is refused rather than used: the API key authenticates every request, and a password in the
 * base URL would travel into request lines, errors and logs. The error never quotes the URL.
 */
export function checkBaseUrl(value: string): string {
  const baseUrl = value.replace(/\/+$/, '');
  const url = parseUrl(baseUrl);
  // Not a URL: no protocol, refused like any other scheme.
  if (!/^https?:$/.test(url?.protocol as string) || url?.username || url?.password) {
    throw new ConfigurationError('baseUrl must be an http(s) URL, without credentials (user:password@).');
  }
  return baseUrl;
}
