/**
 * @binscope/core/http: files over HTTP range requests. Browser-safe (fetch only).
 */
export { type CoalescingOptions, CoalescingSource, RequestPool, remoteReads } from './coalesce.js';
export { HttpDirectory } from './http-directory.js';
export { HttpSource, type HttpSourceOptions, isHttpUrl } from './http-source.js';
