import type { ByteSource } from './bytes.js';
import type { DirectorySource } from './directory.js';
import { SourceError } from './errors.js';
import { RequestPool, remoteReads } from './coalesce.js';
import { HttpSource, type HttpSourceOptions } from './http.js';
import { exchange, requestPolicy } from './http-request.js';
import { ListingGuard, type ListingLimits, MAX_LISTING_PAGE } from './listing.js';
import { parseS3Url, type S3Client } from './s3.js';

function normalize(path: string): string {
  return path.replace(/\\/g, '/').replace(/^\.\//, '').replace(/^\/+/, '');
}

function withSlash(url: string): string {
  return url.endsWith('/') ? url : `${url}/`;
}

/**
 * The objects under an `s3://bucket/prefix/`, as a folder: listed once with ListObjectsV2
 * (within `ListingLimits`, with the objects' timeouts and retries), each opened on demand.
 * Serves SCDL archives and the shards beside a TARIDX index.
 */
export class S3Directory implements DirectorySource {
  readonly name: string;
  private readonly bucket: string;
  private readonly prefix: string;
  private listing: Promise<string[]> | undefined;

  constructor(
    private readonly client: S3Client,
    url: string,
    private readonly sourceOptions: Omit<HttpSourceOptions, 'fetch'> & ListingLimits = {},
  ) {
    this.name = withSlash(url);
    const { bucket, key } = parseS3Url(this.name);
    this.bucket = bucket;
    this.prefix = key === '/' ? '' : key;
  }

  list(): Promise<string[]> {
    this.listing ??= this.client.list(this.bucket, this.prefix, this.sourceOptions).then((objects) =>
      objects
        .map((o) => o.key.slice(this.prefix.length))
        // Zero-byte "folder" markers that consoles create are not files.
        .filter((path) => path !== '' && !path.endsWith('/'))
        .sort(),
    );
    return this.listing;
  }

  async has(path: string): Promise<boolean> {
    return (await this.list()).includes(normalize(path));
  }

  open(path: string): Promise<ByteSource> {
    return this.client.open(`s3://${this.bucket}/${this.prefix}${normalize(path)}`, this.sourceOptions);
  }
}

/** Links a server's index page lists: relative, below the page, no queries or parents. */
function childLinks(html: string): string[] {
  const out: string[] = [];
  for (const match of html.matchAll(/href\s*=\s*"([^"]*)"|href\s*=\s*'([^']*)'/gi)) {
    const href = match[1] ?? match[2];
    if (!href || /^[a-z][a-z0-9+.-]*:|^\/|^#|\?/i.test(href)) continue;
    let path: string;
    try {
      path = decodeURIComponent(href.replace(/^\.\//, ''));
    } catch {
      continue; // A link that is not valid percent-encoding names no file we could open.
    }
    // Encoded or not, a `..` segment leaves the folder, and `.` or an empty one lists a
    // folder again under another name: a cycle with a new path each time round.
    const segments = path.replace(/\/$/, '').split(/[\\/]/);
    if (segments.some((segment) => segment === '' || segment === '.' || segment === '..')) continue;
    out.push(path);
  }
  return out;
}

const MAX_DEPTH = 4;
/** Probes in flight per listing: enough to hide latency, few enough to be polite to a server. */
const PROBES_AT_ONCE = 8;

/**
 * Files below an HTTP base URL. Formats with fixed file names (SCDL's header.sch and its
 * arrays) are opened by name; `list()` reads the server's index page where it has one
 * (nginx autoindex, `python -m http.server`) and is empty where it has not (4xx, not HTML).
 * Index pages are requests like file reads (idle timeout, deadline, retries), at most
 * MAX_DEPTH folders deep and within `ListingLimits`; past a limit is an error, not a partial list.
 */
export class HttpDirectory implements DirectorySource {
  readonly name: string;
  private listing: Promise<string[]> | undefined;
  private readonly opened = new Map<string, Promise<ByteSource | undefined>>();
  private readonly fetchFn: typeof fetch;
  private readonly expected = new Set<string>();

  /**
   * @param pool bounds the requests of every file opened here; pass the pool of the file
   *   the folder is beside to bound both together.
   */
  constructor(
    base: string,
    private readonly sourceOptions: HttpSourceOptions & ListingLimits = {},
    readonly pool: RequestPool = new RequestPool(),
  ) {
    this.name = withSlash(base);
    this.fetchFn = sourceOptions.fetch ?? globalThis.fetch.bind(globalThis);
  }

  private url(path: string): string {
    return new URL(normalize(path).split('/').map(encodeURIComponent).join('/'), this.name).href;
  }

  /**
   * Names a format knows its files by (from a header, or fixed names): `list()` includes
   * those that exist. Their probes run concurrently and keep each file's head cached, so
   * they double as the first read. Call before the first `list()`.
   */
  expect(names: Iterable<string>): void {
    for (const name of names) this.expected.add(normalize(name));
  }

  list(): Promise<string[]> {
    this.listing ??= (async () => {
      const paths = new Set<string>();
      await this.listFolder(new ListingGuard(this.name, this.sourceOptions), '', 0, paths);
      const names = [...this.expected].filter((name) => !paths.has(name));
      for (let i = 0; i < names.length; i += PROBES_AT_ONCE) {
        const batch = names.slice(i, i + PROBES_AT_ONCE);
        const found = await Promise.all(batch.map((name) => this.has(name)));
        for (let k = 0; k < batch.length; k++) if (found[k]) paths.add(batch[k]);
      }
      return [...paths].sort();
    })();
    return this.listing;
  }

  /** One index page, then the folders it links to, depth first. */
  private async listFolder(
    guard: ListingGuard,
    folder: string,
    depth: number,
    into: Set<string>,
  ): Promise<void> {
    const request = {
      url: this.url(folder),
      purpose: `folder listing page ${guard.page()}`,
      counters: { bytesFetched: 0, requests: 0 },
    };
    const html = await exchange(requestPolicy(this.sourceOptions), request, async (response, body, fail) => {
      if (response.ok && (response.headers.get('content-type') ?? '').includes('html'))
        return new TextDecoder().decode(await body.upTo(MAX_LISTING_PAGE, () => guard.pageTooLarge()));
      await body.discard();
      // No index page here (servers refuse or lack one, or serve something else): nothing listed.
      if (response.ok || response.status < 500) return undefined;
      throw fail('http', `HTTP ${response.status} ${response.statusText}`.trim(), response.status);
    });
    if (html === undefined) return;
    const folders = new Set<string>();
    for (const link of childLinks(html)) {
      const path = folder + link;
      if (!link.endsWith('/')) {
        if (!into.has(path)) guard.entry(path);
        into.add(path);
      } else if (depth < MAX_DEPTH) folders.add(path);
    }
    for (const below of folders) await this.listFolder(guard, below, depth + 1, into);
  }

  /** Opens (and keeps) the file, or undefined when the server says it is not there. */
  private probe(path: string): Promise<ByteSource | undefined> {
    const key = normalize(path);
    let pending = this.opened.get(key);
    if (!pending) {
      let status = 0;
      const fetchFn: typeof fetch = async (input, init) => {
        const response = await this.fetchFn(input, init);
        status = response.status;
        return response;
      };
      pending = HttpSource.open(this.url(key), { ...this.sourceOptions, fetch: fetchFn }).then(
        (source): ByteSource => remoteReads(source, this.pool),
        (error) => {
          if (status === 404 || status === 410) return undefined;
          throw error;
        },
      );
      this.opened.set(key, pending);
    }
    return pending;
  }

  async has(path: string): Promise<boolean> {
    return (await this.probe(path)) !== undefined;
  }

  async open(path: string): Promise<ByteSource> {
    const source = await this.probe(path);
    if (!source) throw new SourceError(`${this.url(path)}: not found (HTTP 404)`, this.url(path));
    return source;
  }
}
