import { describe, expect, it } from 'vitest';
import { outputLinks } from '../src/wire';

describe('outputLinks: the links of a completed generation, whatever the answer holds', () => {
  it('the list when output_urls is one, else the one output_url, else none', () => {
    expect(outputLinks({ output_url: 'a', output_urls: ['a', 'b'] })).toEqual(['a', 'b']);
    expect(outputLinks({ output_url: 'a', output_urls: null })).toEqual(['a']);
    expect(outputLinks({ output_url: null, output_urls: null })).toEqual([]);
    expect(outputLinks({ output_url: '', output_urls: null })).toEqual([]);
  });

  it('a string where the list belongs is not read one character at a time', () => {
    expect(outputLinks({ output_url: 'https://x.test/a.png', output_urls: 'https://x.test/a.png' as never })).toEqual([
      'https://x.test/a.png',
    ]);
  });
});
