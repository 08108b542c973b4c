/**
 * @binscope/core/s3: objects in S3 or an S3-compatible store (SigV4 via aws4fetch): reading
 * (`S3Client`, `S3Directory`) and writing (`S3Upload` multipart, `S3DirectorySink` for a
 * folder output). Browser-safe: credentials come from the caller (`@binscope/core/node`
 * resolves the usual AWS environment and files, and opens outputs with `openOutput`).
 */
export {
  isS3Url,
  parseS3Url,
  S3Client,
  type S3ListOptions,
  type S3Location,
  type S3Settings,
} from './s3-client.js';
export { S3Directory } from './s3-directory.js';
export { S3DirectorySink, type S3DirectorySinkOptions } from './s3-directory-sink.js';
export {
  abortMultipartUpload,
  listMultipartUploads,
  type UnfinishedUpload,
  type WriteRequestOptions,
} from './s3-multipart.js';
export { S3Upload, type S3UploadOptions } from './s3-upload.js';
