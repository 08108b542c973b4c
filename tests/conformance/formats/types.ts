import type { AnyFormatPlugin, Target } from '@binscope/core';
import type { ValidCase } from '../vectors.js';

/** What each format contributes to the harness: `formats/<format id>.ts` default-exports one. */
export interface FormatConformance {
  plugin: AnyFormatPlugin;
  /** The path the plugin opens for a valid case: the file, or the archive directory. */
  targetPath(testCase: ValidCase): string;
  /** Reads the case and compares every value expected.json gives (vitest `expect`). */
  checkValid(testCase: ValidCase): Promise<void>;
  /**
   * Warning codes `validate` must report for a valid case, in order, when expected.json
   * states them another way than a `warnings` list (default: that list, else none).
   */
  expectedWarnings?(testCase: ValidCase): string[];
  /** Opens and reads everything through the public reader API; must throw a FormatError on bad input. */
  readAll?(target: Target): Promise<void>;
}
