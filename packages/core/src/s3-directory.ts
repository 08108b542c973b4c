import type { ByteSource } from './bytes.js';
import type { DirectorySource } from './directory.js';
import type { HttpSourceOptions } from './http-source.js';
import type { ListingLimits } from './listing.js';
import { parseS3Url, type S3Client } from './s3-client.js';

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
