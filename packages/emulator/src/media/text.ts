import { rng } from './random.js';

const OPENERS = ['Picture this:', 'Here is a take:', 'Draft:', 'In short:', 'Consider this:'];
const WORDS = [
  'light',
  'morning',
  'quiet',
  'river',
  'bright',
  'craft',
  'honest',
  'simple',
  'warm',
  'steady',
  'open',
  'road',
  'story',
  'small',
  'clear',
  'bold',
  'careful',
  'fresh',
  'season',
  'together',
  'every',
  'detail',
  'made',
  'kind',
];

/** A few deterministic sentences that echo the prompt, as UTF-8 text/plain. */
export function renderText(prompt: string, seed: number): Buffer {
  const r = rng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
  const sentences: string[] = [];
  const n = 3 + Math.floor(r() * 3);
  for (let s = 0; s < n; s++) {
    const words = Array.from({ length: 6 + Math.floor(r() * 8) }, () => pick(WORDS));
    const line = words.join(' ');
    sentences.push(line.charAt(0).toUpperCase() + line.slice(1) + '.');
  }
  const topic = prompt
    .replace(/\[\[[^\]]*\]\]/g, '')
    .trim()
    .slice(0, 120);
  return Buffer.from(`${pick(OPENERS)} ${topic}\n\n${sentences.join(' ')}\n`, 'utf8');
}
