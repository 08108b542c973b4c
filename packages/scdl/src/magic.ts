import { DETECTION_SCORE, type FormatInfo, type ReadOptions, type Target } from '@binscope/core';

/** SCDL archives are folders; detection looks for header.sch starting with "SCDL". */
export const scdlFormat: FormatInfo = {
  specificationVersion: 'v1',
  id: 'scdl',
  title: 'SCDL single-cell archive',
  kind: 'directory',
  extensions: [],
  magic: [{ offset: 0, bytes: 'SCDL' }],
  async detect(target: Target, _head: Uint8Array, options?: ReadOptions): Promise<number> {
    if (target.kind !== 'directory') return 0;
    try {
      if (!(await target.directory.has('header.sch'))) return 0;
      const header = await target.directory.open('header.sch');
      const head = await header.read(0, 4, options);
      return head.byteLength === 4 &&
        head[0] === 0x53 &&
        head[1] === 0x43 &&
        head[2] === 0x44 &&
        head[3] === 0x4c
        ? DETECTION_SCORE.magicAndStructure
        : 0;
    } catch {
      return 0;
    }
  },
};
