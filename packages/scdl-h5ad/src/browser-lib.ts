import { type H5Lib, useThrowingErrors } from './h5.js';

let browserLib: Promise<H5Lib> | undefined;

/** h5wasm's ESM (wasm) build, loaded once on first use; in browsers and, for targets of any source, in Node. */
export function loadH5wasm(): Promise<H5Lib> {
  browserLib ??= import('h5wasm').then(async (lib) => {
    await lib.ready;
    useThrowingErrors(lib as unknown as H5Lib);
    return lib as unknown as H5Lib;
  });
  return browserLib;
}
