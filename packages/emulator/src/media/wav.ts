import { rng } from './random.js';

const RATE = 16_000;
const PENTATONIC = [0, 2, 4, 7, 9, 12, 14, 16];

/** 16-bit mono PCM: a short pentatonic melody with soft attacks, so it is pleasant to play back. */
export function renderWav(seconds: number, seed: number): Buffer {
  const r = rng(seed);
  const samples = Math.round(seconds * RATE);
  const buf = Buffer.alloc(44 + samples * 2);
  buf.write('RIFF', 0, 'latin1');
  buf.writeUInt32LE(36 + samples * 2, 4);
  buf.write('WAVE', 8, 'latin1');
  buf.write('fmt ', 12, 'latin1');
  buf.writeUInt32LE(16, 16);
  buf.writeUInt16LE(1, 20); // PCM
  buf.writeUInt16LE(1, 22); // mono
  buf.writeUInt32LE(RATE, 24);
  buf.writeUInt32LE(RATE * 2, 28);
  buf.writeUInt16LE(2, 32);
  buf.writeUInt16LE(16, 34);
  buf.write('data', 36, 'latin1');
  buf.writeUInt32LE(samples * 2, 40);
  const root = 196 * 2 ** (Math.floor(r() * 7) / 12);
  let i = 0;
  while (i < samples) {
    const len = Math.min(samples - i, Math.round(RATE * (0.2 + Math.floor(r() * 3) * 0.15)));
    const semis = PENTATONIC[Math.floor(r() * PENTATONIC.length)] ?? 0;
    const f = root * 2 ** (semis / 12);
    for (let n = 0; n < len; n++) {
      const t = n / RATE;
      const env = Math.min(1, n / 200) * Math.exp((-3 * n) / len);
      const v = (Math.sin(2 * Math.PI * f * t) * 0.7 + Math.sin(4 * Math.PI * f * t) * 0.2) * env * 0.6;
      buf.writeInt16LE(Math.round(v * 32767), 44 + (i + n) * 2);
    }
    i += len;
  }
  return buf;
}
