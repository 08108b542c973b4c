import {
  DETECTION_SCORE,
  type FormatInfo,
  isBinscopeError,
  type LazyFormat,
  type NearMiss,
  nearMisses,
  nearMissScore,
  type ReadOptions,
  type Target,
} from '@binscope/core';

const SIGNATURE = 'SCDL';

/** The archive's first bytes: a folder's header.sch, or header.sch given as a file beside its folder. */
async function headerHead(target: Target, options?: ReadOptions): Promise<Uint8Array | undefined> {
  if (target.kind === 'file') {
    if (!target.siblings || !/(^|\/)header\.sch$/.test(target.source.name)) return undefined;
    return target.source.read(0, Math.min(target.source.size, 16), options);
  }
  if (!(await target.directory.has('header.sch'))) return undefined;
  const header = await target.directory.open('header.sch');
  return header.read(0, Math.min(header.size, 16), options);
}

/**
 * SCDL as data, for detection and the app's format list: this entry (`@binscope/scdl/magic`)
 * imports no parser code; `load` brings the plugin in on first use, `expectedFiles` the
 * header parse. SCDL archives are folders; detection looks for header.sch starting with "SCDL".
 */
export const scdlFormat: LazyFormat = {
  specificationVersion: 2,
  id: 'scdl',
  title: 'SCDL single-cell archive',
  kind: 'directory',
  role: 'format',
  extensions: [],
  magic: [{ offset: 0, bytes: SIGNATURE }],
  nearMiss: (target, options) => scdlNearMiss(target, options),
  /**
   * header.sch, the arrays and feature-index files it names and the side files: what a folder
   * that cannot be listed (HTTP without an index page) is opened by.
   */
  expectedFiles: async (directory, options) =>
    (await import('./expected-files.js')).scdlExpectedFiles(directory, options),
  load: () => import('./plugin.js').then((m) => m.scdlPlugin),
  async detect(target: Target, _head: Uint8Array, options?: ReadOptions): Promise<number> {
    if (target.kind !== 'directory') return 0;
    try {
      const head = await headerHead(target, options);
      return head !== undefined &&
        head.byteLength >= 4 &&
        String.fromCharCode(...head.subarray(0, 4)) === SIGNATURE
        ? DETECTION_SCORE.magicAndStructure
        : 0;
    } catch (error) {
      // A header.sch that cannot be read (a store refusing or failing) is that failure, not
      // a folder of no known format.
      if (isBinscopeError(error, 'SourceError')) throw error;
      return 0;
    }
  },
};

/**
 * header.sch as a file format, for core's `nearMisses` (which compares a file's head with
 * file signatures): its name's extension makes any damage to the magic a near miss of SCDL.
 */
export const scdlHeaderFile: FormatInfo = {
  specificationVersion: 2,
  id: 'scdl',
  title: scdlFormat.title,
  kind: 'file',
  extensions: ['sch'],
  magic: scdlFormat.magic,
};

/**
 * For a target nothing detected: a folder (or a header.sch beside one) whose header.sch nearly
 * starts with "SCDL", as "BadMagic for SCDL: byte 3 is 0x58, expected 0x4c (…)". Undefined otherwise.
 */
export async function scdlNearMiss(target: Target, options?: ReadOptions): Promise<NearMiss | undefined> {
  const incomplete = await incompleteArchive(target);
  if (incomplete) return incomplete;
  try {
    const head = await headerHead(target, options);
    return head && nearMisses([scdlHeaderFile], head, 'header.sch')[0];
  } catch (error) {
    if (isBinscopeError(error, 'SourceError')) throw error;
    return undefined;
  }
}

/** Files only an SCDL archive has together (the matrix arrays and the files beside them). */
const ARCHIVE_FILES = ['data.npy', 'row_ptr.npy', 'col_ptr.npy', 'metadata.json', 'version.json'];

/**
 * A folder with SCDL's files but no header.sch: the writer puts header.sch last, so this is
 * an archive whose writing did not finish (an interrupted upload to an S3 prefix). Reported
 * as such rather than as a folder of no known format. Two of the names are needed, so a
 * folder that merely holds a data.npy is not taken for one.
 */
async function incompleteArchive(target: Target): Promise<NearMiss | undefined> {
  if (target.kind !== 'directory') return undefined;
  let files: string[];
  try {
    files = await target.directory.list();
  } catch (error) {
    // A listing the store refuses or fails is that failure, as for header.sch itself.
    if (isBinscopeError(error, 'SourceError')) throw error;
    return undefined;
  }
  if (files.includes('header.sch')) return undefined;
  const found = ARCHIVE_FILES.filter((name) => files.includes(name));
  if (found.length < 2) return undefined;
  const detail = `incomplete archive (no header.sch): ${found.join(', ')} and ${files.length - found.length} other file${files.length - found.length === 1 ? '' : 's'} are there, but header.sch, which writers write last, is missing`;
  return {
    id: 'scdl',
    title: scdlFormat.title,
    offset: 0,
    expected: SIGNATURE.charCodeAt(0),
    actual: null,
    matched: 0,
    length: SIGNATURE.length,
    byExtension: false,
    score: nearMissScore(0, SIGNATURE.length, false),
    detail,
    message: `Truncated for SCDL: ${detail}`,
  };
}
