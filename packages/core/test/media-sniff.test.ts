import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSha256, portableSha256 } from '../src/crypto/sha256';
import { sniffMedia } from '../src/wire/media';

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

describe('sniffMedia', () => {
  it('refuses any file whose head also reads as HTML or SVG, whatever magic number it starts with (property)', () => {
    const tag = fc.constantFrom('<script>', '<html>', '<svg onload=x>', '<!DOCTYPE html>', '<iframe src=x>', '<body>', '<!-- x -->');
    const magic = fc.constantFrom(
      PNG_SIGNATURE,
      [0xff, 0xd8, 0xff, 0xe0],
      [...Buffer.from('ID3\x04')],
      [...Buffer.from('\0\0\0\x18ftypmp42')],
    );
    fc.assert(
      fc.property(magic, fc.uint8Array({ maxLength: 3000 }), tag, (start, filler, markup) => {
        const bytes = new Uint8Array([...start, ...filler, ...Buffer.from(markup)]);
        expect(sniffMedia(bytes)).toBeNull();
      }),
    );
  });

  it('reads a real-looking image head with metadata (XMP is XML, not a page) as its format', () => {
    const xmp = Buffer.from('<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF/></x:xmpmeta>');
    expect(sniffMedia(new Uint8Array([0xff, 0xd8, 0xff, 0xe1, ...xmp]))).toBe('jpeg');
  });
});

describe('createSha256', () => {
  it('the JavaScript fallback and Node’s hash agree, however the bytes are cut into chunks (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ maxLength: 300 }), { maxLength: 8 }), (chunks) => {
        const portable = portableSha256();
        const native = createSha256();
        const reference = createHash('sha256');
        for (const chunk of chunks) {
          portable.update(chunk);
          native.update(chunk);
          reference.update(chunk);
        }
        const expected = reference.digest('hex');
        expect(portable.hex()).toBe(expected);
        expect(native.hex()).toBe(expected);
      }),
    );
  });
});
