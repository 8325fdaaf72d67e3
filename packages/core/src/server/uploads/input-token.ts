import { createHmac, encoder, toHex } from '../../crypto/hmac';
import { MEDIA_FORMATS, type MediaFormat } from '../../wire/media';

/**
 * What the upload route hands the browser as `input`, and the browser puts in `input_image` (or
 * the other input fields): `upload:<sha256>.<format>.<expires>.<signature>`. The signature binds
 * the stored object, its format, when its link expires and whose upload it is, so the handler
 * checks ownership from the token alone, on any instance, with no lookup: another user's token,
 * or one with a byte changed, fails the check. The link a token resolves to is a function of the
 * token (same object, same expiry), so a resend of the same body sends the same link.
 */
export interface InputToken {
  sha256: string;
  format: MediaFormat;
  /** When the object's link expires (epoch seconds): the token is refused a day before. */
  expires: number;
}

export const TOKEN_PREFIX = 'upload:';
const TOKEN = /^upload:([0-9a-f]{64})\.([a-z0-9]{2,4})\.(\d{10})\.([0-9a-f]{32})$/;

export interface InputTokens {
  issue(owner: string, token: InputToken): Promise<string>;
  /** The token's parts if `owner` was issued `value` (expiry not checked); else undefined. */
  read(owner: string, value: string): Promise<InputToken | undefined>;
}

export function inputTokens(secret: string): InputTokens {
  const hmac = createHmac();
  const sign = async (owner: string, body: string) =>
    (await hmac.sign(secret, encoder.encode(`mediagen upload\n${owner}\n${body}`))).subarray(0, 16);
  return {
    async issue(owner, { sha256, format, expires }) {
      const body = `${sha256}.${format}.${expires}`;
      return `${TOKEN_PREFIX}${body}.${toHex(await sign(owner, body))}`;
    },
    async read(owner, value) {
      const match = TOKEN.exec(value);
      if (!match || !Object.hasOwn(MEDIA_FORMATS, match[2]!)) return undefined;
      const [, sha256, format, expires, signature] = match as unknown as [string, string, MediaFormat, string, string];
      const expected = await sign(owner, `${sha256}.${format}.${expires}`);
      const given = new Uint8Array(signature.match(/../g)!.map((h) => Number.parseInt(h, 16)));
      return hmac.equal(expected, given) ? { sha256, format, expires: Number(expires) } : undefined;
    },
  };
}

/** The stored object's key: one file, one object, whoever uploads it and however often. */
export const objectKey = (token: Pick<InputToken, 'sha256' | 'format'>): string => `${token.sha256}.${token.format}`;
