import type { ByteSource } from './bytes.js';
import { RequestPool, remoteReads } from './coalesce.js';
import type { DirectorySource } from './directory.js';
import { SourceError } from './errors.js';
import { HttpSource, type HttpSourceOptions } from './http-source.js';

function normalize(path: string): string {
  return path.replace(/\\/g, '/').replace(/^\.\//, '').replace(/^\/+/, '');
}

function withSlash(url: string): string {
  return url.endsWith('/') ? url : `${url}/`;
}

/** Links a server's index page lists: relative, below the page, no queries or parents. */
function childLinks(html: string): string[] {
  const out: string[] = [];
  for (const match of html.matchAll(/href\s*=\s*"([^"]*)"|href\s*=\s*'([^']*)'/gi)) {
    const href = match[1] ?? match[2];
    if (!href || /^[a-z]+:|^\/|^\.\.|^#|\?/i.test(href)) continue;
    try {
      out.push(decodeURIComponent(href.replace(/^\.\//, '')));
    } catch {
      // A link that is not valid percent-encoding names no file we could open.
    }
  }
  return out;
}

const MAX_LISTED = 100_000;
const MAX_DEPTH = 4;
/** Probes in flight per listing: enough to hide latency, few enough to be polite to a server. */
const PROBES_AT_ONCE = 8;

/**
 * Files below an HTTP base URL. Formats with fixed file names (SCDL's header.sch and its
 * arrays) are opened by name; `list()` reads the server's index page where it has one
 * (nginx autoindex, `python -m http.server`) and is empty where it has not.
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
    private readonly sourceOptions: HttpSourceOptions = {},
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
      const paths = new Set(await this.listFolder('', 0, []));
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

  private async listFolder(folder: string, depth: number, into: string[]): Promise<string[]> {
    let response: Response;
    try {
      response = await this.fetchFn(new URL(folder, this.name).href, { headers: this.sourceOptions.headers });
    } catch {
      return into;
    }
    const type = response.headers.get('content-type') ?? '';
    if (!response.ok || !type.includes('html')) {
      await response.body?.cancel().catch(() => {});
      return into;
    }
    for (const link of childLinks(await response.text())) {
      if (into.length >= MAX_LISTED) break;
      if (!link.endsWith('/')) into.push(folder + link);
      else if (depth < MAX_DEPTH) await this.listFolder(folder + link, depth + 1, into);
    }
    return into;
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
