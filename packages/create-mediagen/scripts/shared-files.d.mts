export declare const ROOT: string;
export interface SharedCopy {
  /** The one source, in apps/shared/. */
  source: string;
  /** The sample's folder name under apps/ (`express-sample`). */
  sample: string;
  /** The copy's path inside the sample (`src/settings.ts`). */
  path: string;
  /** The copy's absolute path. */
  copy: string;
}
export declare function sharedCopies(root?: string): SharedCopy[];
export declare function driftedCopies(root?: string): string[];
export declare function writeCopies(root?: string): string[];
export declare const DRIFT_HELP: string;
