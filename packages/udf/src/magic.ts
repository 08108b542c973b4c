import { DETECTION_SCORE, type LazyFormat } from '@binscope/core';

/**
 * UDF as data, for detection and the app's format list: this entry (`@binscope/udf/magic`)
 * imports no parser code; `load` brings it in on first use. "UDF" is the family signature
 * (later revisions bump the fourth byte, which the reader reports as UnsupportedVersion), so a
 * file starting "UDF" + digit is UDF.
 */
export const udfFormat: LazyFormat = {
  specificationVersion: 2,
  id: 'udf',
  title: 'UDF (Untitled Data Format)',
  kind: 'file',
  role: 'format',
  extensions: ['udf'],
  mimeTypes: ['application/x-udf'],
  magic: [{ offset: 0, bytes: 'UDF0' }],
  async detect(target, head) {
    if (target.kind !== 'file') return 0;
    return head.length >= 4 &&
      head[0] === 0x55 &&
      head[1] === 0x44 &&
      head[2] === 0x46 &&
      head[3] >= 0x30 &&
      head[3] <= 0x39
      ? DETECTION_SCORE.partialMagic
      : 0;
  },
  load: () => import('./plugin.js').then((m) => m.udfPlugin),
};
