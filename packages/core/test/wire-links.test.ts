import { describe, expect, it } from 'vitest';
import { API_PREFIX, OUTPUT_LINK_PATTERN, OUTPUT_LINK_PREFIX, outputLinkPath, parseOutputLinkPath } from '../src/wire';

describe('the wire: output link shape', () => {
  it('the pattern and the prefix state one shape, under API_PREFIX', () => {
    expect(OUTPUT_LINK_PREFIX).toBe(`${API_PREFIX}/output/`);
    expect(OUTPUT_LINK_PATTERN.source.startsWith(OUTPUT_LINK_PREFIX.replaceAll('/', '\\/'))).toBe(true);
  });

  it('what outputLinkPath builds, parseOutputLinkPath reads back (encoded text, canonical numbers)', () => {
    const parts = { generationId: 'a b/c', expiry: 1_700_000_000, signature: 's_-1', index: 0, filename: 'image 1.png' };
    expect(parseOutputLinkPath(outputLinkPath(parts))).toEqual(parts);
    expect(parseOutputLinkPath(`/x${outputLinkPath({ ...parts, index: 12 })}`)?.index).toBe(12);
  });
});
