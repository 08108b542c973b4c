/**
 * @binscope/core/s3: objects in S3 or an S3-compatible store (SigV4 via aws4fetch).
 * Browser-safe: credentials come from the caller (`@binscope/core/node` resolves the usual
 * AWS environment and files).
 */
export { isS3Url, parseS3Url, S3Client, type S3Location, type S3Settings } from './s3-client.js';
export { S3Directory } from './s3-directory.js';
