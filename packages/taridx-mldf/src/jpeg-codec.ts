/**
 * libjpeg-turbo's decoder (the MozJPEG build of jSquash, compiled to WebAssembly) and its
 * bytes, inlined as base64 at build time: nothing is fetched at run time, in Node or in a browser.
 * Loaded with a dynamic import, so a conversion without JPEGs never pays for it.
 */
export { default as wasm } from '@jsquash/jpeg/codec/dec/mozjpeg_dec.wasm';
export { default as factory } from '@jsquash/jpeg/codec/dec/mozjpeg_dec.js';
