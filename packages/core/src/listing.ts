import { SourceError, type SourceErrorReason } from './errors.js';

/**
 * Bounds on one folder listing (S3 ListObjectsV2 pages, HTTP folder index pages). A server
 * decides how many pages, entries and names it sends; these keep a listing from running or
 * growing without end, and going past one is an error, never a silently partial list.
 */
export interface ListingLimits {
  /** Files (keys) at most (default 1,000,000). */
  maxEntries?: number;
  /** Pages (one request each) at most (default 10,000). */
  maxPages?: number;
  /**
   * Total length of the names kept, in characters (default 128 Mi): with maxEntries, what
   * bounds a listing's memory, whatever the length of each name.
   */
  maxNamesLength?: number;
}

const LISTING_LIMITS: Readonly<Required<ListingLimits>> = {
  maxEntries: 1_000_000,
  maxPages: 10_000,
  maxNamesLength: 128 * 1024 * 1024,
};

/** The largest listing page read (an S3 page of 1,000 keys is about 0.5 MB; an index page less). */
export const MAX_LISTING_PAGE = 16 * 1024 * 1024;

/** Counts what one listing has cost and refuses what would pass its limits or never end. */
export class ListingGuard {
  private pages = 0;
  private entries = 0;
  private namesLength = 0;
  private readonly tokens = new Set<string>();
  private readonly limits: Required<ListingLimits>;

  /** @param where the listing's name in messages and as the error's path (`s3://b/prefix/`). */
  constructor(
    readonly where: string,
    limits: ListingLimits = {},
  ) {
    this.limits = {
      maxEntries: limits.maxEntries ?? LISTING_LIMITS.maxEntries,
      maxPages: limits.maxPages ?? LISTING_LIMITS.maxPages,
      maxNamesLength: limits.maxNamesLength ?? LISTING_LIMITS.maxNamesLength,
    };
  }

  fail(reason: SourceErrorReason, message: string): SourceError {
    return new SourceError(`${this.where} (listing): ${message}`, this.where, { reason });
  }

  /** Before each page's request; returns its number (1-based). */
  page(): number {
    if (this.pages >= this.limits.maxPages)
      throw this.fail('limit', `the listing has more than ${this.limits.maxPages} pages (maxPages)`);
    return ++this.pages;
  }

  /** A continuation token (or folder) the listing will follow: each only once. */
  follow(token: string): void {
    if (this.tokens.has(token))
      throw this.fail(
        'bad-response',
        `the server gave continuation token ${JSON.stringify(token.slice(0, 64))} again (a listing that cycles)`,
      );
    this.name(token);
    this.tokens.add(token);
  }

  /** A name the listing keeps. */
  entry(name: string): void {
    if (++this.entries > this.limits.maxEntries)
      throw this.fail('limit', `the listing has more than ${this.limits.maxEntries} entries (maxEntries)`);
    this.name(name);
  }

  private name(text: string): void {
    this.namesLength += text.length;
    if (this.namesLength > this.limits.maxNamesLength)
      throw this.fail(
        'limit',
        `the listing has names longer than ${this.limits.maxNamesLength} characters in all (maxNamesLength)`,
      );
  }

  /** The error for a listing page larger than MAX_LISTING_PAGE. */
  pageTooLarge(): SourceError {
    return this.fail('limit', `a listing page larger than ${MAX_LISTING_PAGE} bytes`);
  }
}
