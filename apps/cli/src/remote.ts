import {
  type DirectorySource,
  directoryTarget,
  type Registry,
  fileTarget,
  isBinscopeError,
  SourceError,
  type Target,
} from '@binscope/core';
import {
  HttpDirectory,
  HttpSource,
  type HttpSourceOptions,
  isHttpUrl,
  RequestPool,
  remoteReads,
} from '@binscope/core/http';
import { isS3Url, parseS3Url, S3Client, S3Directory } from '@binscope/core/s3';
import { openDirectory, resolveS3Settings } from '@binscope/core/node';
import { CliError, EXIT } from './errors.js';

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

/** A number of seconds from the environment, in ms; undefined (core's default) when unset. */
function secondsFromEnv(name: string): number | undefined {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return undefined;
  const seconds = Number(raw);
  if (!(seconds > 0)) throw new CliError(`${name}=${raw}: expected a number of seconds above 0`, EXIT.usage);
  return seconds * 1000;
}

/**
 * Timeouts of every remote request (objects and listings): BINSCOPE_HTTP_IDLE_TIMEOUT and
 * BINSCOPE_HTTP_DEADLINE in seconds, else core's defaults (30 s idle, 120 s in all).
 */
function requestTimeouts(): Pick<HttpSourceOptions, 'idleTimeout' | 'deadline'> {
  return {
    idleTimeout: secondsFromEnv('BINSCOPE_HTTP_IDLE_TIMEOUT'),
    deadline: secondsFromEnv('BINSCOPE_HTTP_DEADLINE'),
  };
}

/**
 * An S3 prefix as a folder target, listed now: a listing that fails (refused, expired, a
 * missing bucket, a store that stalls, loops or stays busy) or finds nothing is reported as
 * what it is, not as a folder that no format recognises.
 */
async function s3Folder(client: S3Client, url: string): Promise<Target> {
  const directory = new S3Directory(client, url, requestTimeouts());
  if ((await directory.list()).length === 0)
    throw new SourceError(`${directory.name}: no objects under this prefix`, directory.name);
  return directoryTarget(directory);
}

/**
 * An s3:// URL as a target. A trailing slash names a folder (an SCDL archive); a key that
 * is no object but a prefix with objects under it is read as a folder too.
 */
async function openS3(url: string): Promise<Target> {
  const client = s3Client();
  if (url.endsWith('/')) return s3Folder(client, url);
  const { bucket, key } = parseS3Url(url);
  if (!key) return s3Folder(client, `${url}/`);
  const timeouts = requestTimeouts();
  try {
    const source = await client.open(url, timeouts);
    return fileTarget(source, new S3Directory(client, parentUrl(url), timeouts));
  } catch (error) {
    if (
      isBinscopeError(error, 'SourceError') &&
      /NoSuchKey/.test(error.message) &&
      (await client.hasPrefix(bucket, `${key}/`, timeouts))
    )
      return s3Folder(client, `${url}/`);
    throw error;
  }
}

/**
 * An HTTP server need not list folders, so a folder format under a base URL is known by the
 * files its format says it expects (FormatInfo.expectedFiles: read from what is there, such
 * as a header naming its arrays). A format that finds nothing it knows adds no names.
 */
async function expectFiles(directory: HttpDirectory, registry: Registry): Promise<void> {
  for (const format of registry.formats) {
    if (format.kind !== 'directory' || !format.expectedFiles) continue;
    let names: string[];
    try {
      names = await format.expectedFiles(directory);
    } catch {
      // Not this format's folder, or one it cannot read: its reader names the problem later.
      continue;
    }
    if (names.length > 0) directory.expect(names);
  }
}

async function openHttp(url: string, registry: Registry): Promise<Target> {
  const options = { fetch: countingFetch(), ...requestTimeouts() };
  if (url.endsWith('/')) {
    const directory = new HttpDirectory(url, options);
    await expectFiles(directory, registry);
    return directoryTarget(directory);
  }
  const pool = new RequestPool();
  const source = remoteReads(await HttpSource.open(url, options), pool);
  return fileTarget(source, new HttpDirectory(parentUrl(url), options, pool));
}

/** Opens a URL as a plugin target; undefined for local paths (the caller opens those). */
export async function openRemote(input: string, registry: Registry): Promise<Target | undefined> {
  switch (inputKind(input)) {
    case 's3':
      return openS3(input);
    case 'http':
      return openHttp(input, registry);
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
  if (inputKind(location) === 's3') return new S3Directory(s3Client(), folder, requestTimeouts());
  if (inputKind(location) === 'http')
    return new HttpDirectory(folder, { fetch: countingFetch(), ...requestTimeouts() });
  if (location === '-') throw randomAccessPipe('a folder of shards');
  return openDirectory(location);
}
