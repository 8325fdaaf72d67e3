import { rng } from './random.js';

/**
 * A landscape drawn in 256 indexed colours: a sky gradient, a sun, four mountain ridges.
 * Indexed colour lets the same frames feed both PNG (colour type 3) and GIF, keeps large
 * images cheap to render and compress, and reads at a glance as a picture, not noise.
 * Palette layout: 0-127 sky, 128-135 sun, 136-199 four ridges of 16 shades, 200-255 unused.
 */
export interface Scene {
  palette: Uint8Array; // 256 * 3
  render(width: number, height: number, t: number): Uint8Array;
}

function hsl(h: number, s: number, l: number): [number, number, number] {
  const k = (n: number) => (n + h / 30) % 12;
  const a = s * Math.min(l, 1 - l);
  const f = (n: number) => l - a * Math.max(-1, Math.min(k(n) - 3, Math.min(9 - k(n), 1)));
  return [Math.round(f(0) * 255), Math.round(f(8) * 255), Math.round(f(4) * 255)];
}

const mix = (a: number[], b: number[], t: number): number[] => a.map((x, i) => Math.round(x + ((b[i] ?? 0) - x) * t));

export function makeScene(seed: number): Scene {
  const r = rng(seed);
  const palette = new Uint8Array(256 * 3);
  const set = (i: number, c: number[]) => palette.set(c.slice(0, 3), i * 3);

  const skyHue = r() * 360;
  const top = hsl(skyHue, 0.55 + r() * 0.3, 0.18 + r() * 0.2);
  const horizon = hsl((skyHue + 30 + r() * 60) % 360, 0.7 + r() * 0.25, 0.6 + r() * 0.2);
  for (let i = 0; i < 128; i++) set(i, mix(top, horizon, i / 127));
  const sun = hsl((skyHue + 180 + r() * 40) % 360, 0.9, 0.75);
  for (let i = 0; i < 8; i++) set(128 + i, mix(sun, horizon, i / 10));
  const ridgeHue = (skyHue + 140 + r() * 80) % 360;
  for (let k = 0; k < 4; k++) {
    const far = hsl(ridgeHue, 0.25 + k * 0.1, 0.55 - k * 0.12);
    const near = hsl((ridgeHue + 10) % 360, 0.3 + k * 0.1, 0.42 - k * 0.1);
    const hazy = mix(far, horizon, 0.45 - k * 0.13);
    for (let s = 0; s < 16; s++) set(136 + k * 16 + s, mix(hazy, near, s / 15));
  }

  const layers = [0, 1, 2, 3].map((k) => ({
    base: 0.45 + k * 0.12 + r() * 0.05,
    waves: [0, 1, 2].map((j) => ({
      amp: (0.06 + r() * 0.08) / (j + 1),
      freq: (1 + r() * 2) * (j * 2.3 + 1) * (1 + k * 0.4),
      phase: r() * Math.PI * 2,
    })),
    speed: 0.02 * (k + 1),
  }));
  const sunX = 0.2 + r() * 0.6;
  const sunY = 0.18 + r() * 0.2;
  const sunR = 0.06 + r() * 0.05;

  return {
    palette,
    render(width: number, height: number, t: number): Uint8Array {
      const px = new Uint8Array(width * height);
      const ridge = layers.map((layer) => {
        const row = new Float32Array(width);
        const shift = layer.speed * t;
        for (let x = 0; x < width; x++) {
          const u = x / width + shift;
          let y = layer.base;
          for (const w of layer.waves) y -= w.amp * Math.sin(u * w.freq * Math.PI * 2 + w.phase);
          row[x] = y * height;
        }
        return row;
      });
      const scx = (sunX + 0.01 * t) * width;
      const scy = (sunY + 0.02 * Math.sin(t)) * height;
      const sr = sunR * Math.min(width, height);
      const glow = sr * 1.6;
      const d = Math.max(1, height * 0.35);
      for (let y = 0; y < height; y++) {
        const skyIdx = Math.min(127, Math.floor((y / height) * 150));
        const off = y * width;
        const dy = y - scy;
        const sunRow = Math.abs(dy) < glow;
        for (let x = 0; x < width; x++) {
          let c = skyIdx;
          if (sunRow) {
            const dx = x - scx;
            const dist = Math.sqrt(dx * dx + dy * dy);
            if (dist < sr) c = 128;
            else if (dist < glow) c = 129 + Math.floor(((dist - sr) / (glow - sr)) * 7);
          }
          for (let k = 3; k >= 0; k--) {
            const top = (ridge[k] as Float32Array)[x] as number;
            if (y >= top) {
              c = 136 + k * 16 + Math.min(15, Math.floor(((y - top) / d) * 15));
              break;
            }
          }
          px[off + x] = c;
        }
      }
      return px;
    },
  };
}
