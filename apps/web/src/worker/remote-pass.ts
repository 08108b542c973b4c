import {
  type ByteSource,
  fileTarget,
  type ProgressCallback,
  type ProgressEvent,
  percentProgress,
  type Target,
} from '@binscope/core';
import { type HttpSource, RequestPool, remoteReads } from '@binscope/core/http';
import { Coverage, CoverageSource } from './counting';

/**
 * One sequential pass (a validation) over a file opened by URL, read as the CLI reads one:
 * core's remoteReads, so a forward scan asks for windows growing up to 8 MiB, one fetched
 * while the one before is checked, instead of one small request per structure. Each pass
 * gets its own read-ahead, tied to its signal: the user's clicks elsewhere (random reads of
 * the session's own source) do not reset its windows, and a cancel aborts the windows in
 * flight and makes no request after it.
 *
 * Its progress is never ahead of the bytes checked: a validator's items can be light and its
 * bytes heavy (a first pass over an index, then every value), and over a network the bytes
 * are what takes the time. The share shown is the smaller of the validator's own share and
 * the share of the file it has read, and never goes back.
 */
export class RemotePass {
  readonly target: Target;
  private readonly coverage = new Coverage();
  private readonly report: (done: number) => void;
  private readonly size: number;
  /** The validator's own share, once it has said one. */
  private own: number | undefined;
  private shown = 0;

  constructor(http: HttpSource, pool: RequestPool, signal: AbortSignal, onProgress?: ProgressCallback) {
    this.size = http.size;
    const source = new ProgressSource(remoteReads(http, pool, { signal }), this.coverage, () =>
      this.update(),
    );
    this.target = fileTarget(source);
    this.report = percentProgress(onProgress, this.size, 'validate', 'bytes');
  }

  /** The callback to give the validator. */
  readonly onProgress = (event: ProgressEvent): void => {
    if (event.total) this.own = Math.max(this.own ?? 0, Math.min(1, event.done / event.total));
    this.update();
  };

  /** The validation is over: the whole file is accounted for. */
  finish(): void {
    this.shown = 1;
    this.report(this.size);
  }

  private update(): void {
    const read = this.size > 0 ? this.coverage.bytes / this.size : 1;
    const share = this.own === undefined ? read : Math.min(this.own, read);
    // A share below 1 until the validator has finished: 100 % is for the report.
    this.shown = Math.max(this.shown, Math.min(share, 0.999));
    this.report(Math.floor(this.shown * this.size));
  }
}

/** Counts the distinct bytes the validator has read, and says when a read has arrived. */
class ProgressSource extends CoverageSource {
  constructor(
    inner: ByteSource,
    coverage: Coverage,
    private readonly onRead: () => void,
  ) {
    super(inner, coverage);
  }
  protected override covered(offset: number, bytes: Uint8Array): Uint8Array {
    super.covered(offset, bytes);
    this.onRead();
    return bytes;
  }
}

/** A pass-maker for one URL: its passes share one bound on requests in flight. */
export function remotePasses(http: HttpSource) {
  const pool = new RequestPool();
  return (signal: AbortSignal, onProgress?: ProgressCallback) =>
    new RemotePass(http, pool, signal, onProgress);
}
