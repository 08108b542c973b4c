import {
  directoryTarget,
  fileTarget,
  isBinscopeError,
  type Target,
  type DirectorySource,
} from '@binscope/core';
import { HttpDirectory, HttpSource, isHttpUrl, RequestPool, remoteReads } from '@binscope/core/http';
import { isS3Url, parseS3Url, S3Client, S3Directory } from '@binscope/core/s3';
import { openDirectory, resolveS3Settings } from '@binscope/core/node';
import { CliError, EXIT } from './errors.js';
import { expectScdlFiles } from './http-archive.js';

/** Where an input lives: a local path, an http(s) or s3 URL, or standard input. */
export type InputKind = 'path' | 'http' | 's3' | 'stdin';

export function inputKind(input: string): InputKind {
  if (input === '-') return 'stdin';
  if (isS3Url(input)) return 's3';
  if (isHttpUrl(input)) return 'http';
  return 'path';
}

export function isRemote(input: string): boolean {
  const kind = inputKind(input);
  return kind === 'http' || kind === 's3';
}

let sharedClient: S3Client | undefined;

/** One client per process: settings are read once, and its counters cover every request. */
export function s3Client(): S3Client {
  sharedClient ??= new S3Client(resolveS3Settings());
  return sharedClient;
}

/** Requests and bytes this process sent to S3 and HTTP sources, for `--stats`-style reports. */
export const remoteTraffic = { httpRequests: 0, httpBytes: 0 };

function countingFetch(): typeof fetch {
  const base = globalThis.fetch.bind(globalThis);
  return async (input, init) => {
    remoteTraffic.httpRequests++;
    const response = await base(input, init);
    const length = Number(response.headers.get('content-length') ?? 0);
    if (Number.isFinite(length)) remoteTraffic.httpBytes += length;
    return response;
  };
}

function parentUrl(url: string): string {
  return url.slice(0, url.lastIndexOf('/') + 1);
}

/**
 * An s3:// URL as a target. A trailing slash names a folder (an SCDL archive); a key that
 * is no object but a prefix with objects under it is read as a folder too.
 */
async function openS3(url: string): Promise<Target> {
  const client = s3Client();
  if (url.endsWith('/')) return directoryTarget(new S3Directory(client, url));
  const { bucket, key } = parseS3Url(url);
  if (!key) return directoryTarget(new S3Directory(client, `${url}/`));
  try {
    const source = await client.open(url);
    return fileTarget(source, new S3Directory(client, parentUrl(url)));
  } catch (error) {
    if (
      isBinscopeError(error, 'SourceError') &&
      /NoSuchKey/.test(error.message) &&
      (await client.hasPrefix(bucket, `${key}/`))
    )
      return directoryTarget(new S3Directory(client, `${url}/`));
    throw error;
  }
}

async function openHttp(url: string): Promise<Target> {
  const fetchFn = countingFetch();
  if (url.endsWith('/')) {
    const directory = new HttpDirectory(url, { fetch: fetchFn });
    await expectScdlFiles(directory);
    return directoryTarget(directory);
  }
  const pool = new RequestPool();
  const source = remoteReads(await HttpSource.open(url, { fetch: fetchFn }), pool);
  return fileTarget(source, new HttpDirectory(parentUrl(url), { fetch: fetchFn }, pool));
}

/** Opens a URL as a plugin target; undefined for local paths (the caller opens those). */
export async function openRemote(input: string): Promise<Target | undefined> {
  switch (inputKind(input)) {
    case 's3':
      return openS3(input);
    case 'http':
      return openHttp(input);
    case 'stdin':
      throw randomAccessPipe();
    default:
      return undefined;
  }
}

/** What a verb that needs random access says when given standard input. */
export function randomAccessPipe(what = 'this command'): CliError {
  return new CliError(
    `-: ${what} needs random access and standard input is a stream; save it to a file, or give its path or URL`,
    EXIT.usage,
  );
}

/** A folder by path or URL (`--shards s3://bucket/shards/`). */
export function openFolder(location: string): DirectorySource {
  const folder = location.endsWith('/') ? location : `${location}/`;
  if (inputKind(location) === 's3') return new S3Directory(s3Client(), folder);
  if (inputKind(location) === 'http') return new HttpDirectory(folder, { fetch: countingFetch() });
  if (location === '-') throw randomAccessPipe('a folder of shards');
  return openDirectory(location);
}
