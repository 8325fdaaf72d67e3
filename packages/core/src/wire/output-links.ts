import type { Generation } from '../types';

/**
 * The output links of a completed generation, as an app that downloads them reads them:
 * `output_urls` when it is a list, else the one `output_url`, else none. A list is never
 * assumed: read by index, a string there would give one character per "link".
 */
export function outputLinks(generation: Pick<Generation, 'output_url' | 'output_urls'>): string[] {
  const urls: unknown = generation.output_urls;
  if (Array.isArray(urls)) return urls as string[];
  return typeof generation.output_url === 'string' && generation.output_url ? [generation.output_url] : [];
}
