/**
 * The contract's timing facts (spec: GET /api/v1/generations/{id}, "Recommended polling
 * interval"; Limits, "Typical render time"), in one place for core's `wait`, the Next hook and
 * the CLI's progress line.
 */

/** Recommended status polling interval per model kind: 2 s for image, 4 s for video. */
export function pollIntervalMs(kind: string | undefined): number {
  return kind === 'video' ? 4_000 : 2_000;
}

/** Typical render time in seconds, where the contract gives one (image 5-15 s, video 30-180 s). */
export const TYPICAL_RENDER_SECONDS: Readonly<Partial<Record<string, readonly [min: number, max: number]>>> = {
  image: [5, 15],
  video: [30, 180],
};
