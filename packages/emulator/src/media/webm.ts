import { frameFrom } from './derive.js';
import { makeScene } from './scene.js';
import type { Thumb } from './thumb.js';
import { encodeKeyFrame, type MacroblockImage } from './vp8.js';

const FPS = 4;

/** An EBML element: its id bytes, then its size as an 8-byte variable-length integer, then the payload. */
function element(id: number[], payload: Uint8Array | readonly Uint8Array[]): Uint8Array {
  const parts = payload instanceof Uint8Array ? [payload] : payload;
  const size = parts.reduce((n, p) => n + p.length, 0);
  const out = new Uint8Array(id.length + 8 + size);
  out.set(id);
  out[id.length] = 0x01; // 8-byte size marker
  for (let i = 0, s = size; i < 7; i++, s = Math.floor(s / 256)) out[id.length + 7 - i] = s % 256;
  let at = id.length + 8;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

const uint = (id: number[], value: number): Uint8Array => {
  const bytes: number[] = [];
  for (let v = value; bytes.length === 0 || v > 0; v = Math.floor(v / 256)) bytes.unshift(v % 256);
  return element(id, Uint8Array.from(bytes));
};
const text = (id: number[], value: string): Uint8Array => element(id, new TextEncoder().encode(value));
const float = (id: number[], value: number): Uint8Array => {
  const bytes = new Uint8Array(8);
  new DataView(bytes.buffer).setFloat64(0, value);
  return element(id, bytes);
};

/** BT.601 studio-swing Y'CbCr of an 8-bit RGB colour, as VP8 expects. */
export function yuv(r: number, g: number, b: number): [number, number, number] {
  const clamp = (v: number) => Math.max(0, Math.min(255, Math.round(v)));
  return [
    clamp(16 + (65.481 * r + 128.553 * g + 24.966 * b) / 255),
    clamp(128 + (-37.797 * r - 74.203 * g + 112 * b) / 255),
    clamp(128 + (112 * r - 93.786 * g - 18.214 * b) / 255),
  ];
}

/** A frame of `cols` x `rows` macroblocks, every plane zero: what each frame builder fills in. */
function blankImage(cols: number, rows: number): MacroblockImage {
  return { cols, rows, y: new Uint8Array(cols * rows), u: new Uint8Array(cols * rows), v: new Uint8Array(cols * rows) };
}

function sceneFrame(indices: Uint8Array, colours: [number, number, number][], cols: number, rows: number): MacroblockImage {
  const image = blankImage(cols, rows);
  indices.forEach((index, at) => {
    const [y, u, v] = colours[index] as [number, number, number];
    image.y[at] = y;
    image.u[at] = u;
    image.v[at] = v;
  });
  return image;
}

/** One frame of an image-to-video clip: the input picture, zoomed in by `progress` (0 to 1). */
export function sourceFrame(source: Thumb, cols: number, rows: number, progress: number): MacroblockImage {
  const rgb = frameFrom(source, cols, rows, progress);
  const image = blankImage(cols, rows);
  for (let at = 0; at < cols * rows; at++) {
    const [y, u, v] = yuv(rgb[at * 3] as number, rgb[at * 3 + 1] as number, rgb[at * 3 + 2] as number);
    image.y[at] = y;
    image.u[at] = u;
    image.v[at] = v;
  }
  return image;
}

/**
 * A WebM (VP8) clip of the landscape panning: `seconds` long at 4 frames per second, each
 * frame a key frame with one colour per 16x16 macroblock. Real video a browser plays in a
 * `<video>` element, rendered in milliseconds and a few kilobytes per frame. With `source`
 * (image-to-video), the clip opens on the input picture and zooms slowly into it instead.
 */
export function renderWebm(width: number, height: number, seconds: number, seed: number, source?: Thumb): Buffer {
  const scene = makeScene(seed);
  const cols = Math.ceil(width / 16);
  const rows = Math.ceil(height / 16);
  const colours = Array.from({ length: 256 }, (_, i) =>
    yuv(scene.palette[i * 3] as number, scene.palette[i * 3 + 1] as number, scene.palette[i * 3 + 2] as number),
  );
  const frames = Math.max(2, Math.round(seconds * FPS));
  const blocks: Uint8Array[] = [uint([0xe7], 0)]; // cluster timecode
  for (let f = 0; f < frames; f++) {
    const image = source
      ? sourceFrame(source, cols, rows, f / (frames - 1))
      : sceneFrame(scene.render(cols, rows, f / FPS), colours, cols, rows);
    const frame = encodeKeyFrame(width, height, image);
    const ms = Math.round((f * 1000) / FPS);
    // SimpleBlock: track 1, timecode relative to the cluster (int16), key frame flag, the frame.
    const head = Uint8Array.from([0x81, (ms >> 8) & 0xff, ms & 0xff, 0x80]);
    blocks.push(element([0xa3], [head, frame]));
  }
  const durationMs = (frames * 1000) / FPS;
  const ebml = element(
    [0x1a, 0x45, 0xdf, 0xa3],
    [
      uint([0x42, 0x86], 1), // EBMLVersion
      uint([0x42, 0xf7], 1), // EBMLReadVersion
      uint([0x42, 0xf2], 4), // EBMLMaxIDLength
      uint([0x42, 0xf3], 8), // EBMLMaxSizeLength
      text([0x42, 0x82], 'webm'), // DocType
      uint([0x42, 0x87], 2), // DocTypeVersion
      uint([0x42, 0x85], 2), // DocTypeReadVersion
    ],
  );
  const info = element(
    [0x15, 0x49, 0xa9, 0x66],
    [
      uint([0x2a, 0xd7, 0xb1], 1_000_000), // TimecodeScale: milliseconds
      float([0x44, 0x89], durationMs), // Duration
      text([0x4d, 0x80], 'mediagen-emulator'), // MuxingApp
      text([0x57, 0x41], 'mediagen-emulator'), // WritingApp
    ],
  );
  const tracks = element(
    [0x16, 0x54, 0xae, 0x6b],
    [
      element(
        [0xae],
        [
          uint([0xd7], 1), // TrackNumber
          uint([0x73, 0xc5], 1), // TrackUID
          uint([0x83], 1), // TrackType: video
          text([0x86], 'V_VP8'), // CodecID
          uint([0x23, 0xe3, 0x83], 1_000_000_000 / FPS), // DefaultDuration (ns)
          element([0xe0], [uint([0xb0], width), uint([0xba], height)]), // Video: PixelWidth, PixelHeight
        ],
      ),
    ],
  );
  const cluster = element([0x1f, 0x43, 0xb6, 0x75], blocks);
  const segment = element([0x18, 0x53, 0x80, 0x67], [info, tracks, cluster]);
  return Buffer.concat([ebml, segment]);
}
