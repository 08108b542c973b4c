import type { ProgressCallback, ProgressEvent } from '@binscope/core';
import cliProgress from 'cli-progress';
import type { CliStreams } from './io.js';
import { printable } from './printable.js';

export interface Progress {
  /** Hand this to a writer/indexer/converter. */
  onProgress: ProgressCallback;
  stop(): void;
}

function amount(value: number, unit: ProgressEvent['unit']): string {
  if (unit !== 'bytes') return value.toLocaleString('en-US');
  if (value < 1024 * 1024) return `${(value / 1024).toFixed(0)} KiB`;
  return `${(value / 1024 / 1024).toFixed(1)} MiB`;
}

/**
 * A progress bar on stderr, only for a person watching: when stderr is a terminal and the
 * output is not --json. Otherwise a no-op, so pipes and logs stay clean.
 */
export function progressBar(stderr: CliStreams['stderr'], label: string, enabled: boolean): Progress {
  if (!enabled || !stderr.isTTY) return { onProgress: () => {}, stop: () => {} };
  let bar: cliProgress.SingleBar | undefined;
  let knownTotal: number | undefined;
  return {
    onProgress(event) {
      const payload = {
        phase: printable(event.phase ?? label),
        done: amount(event.done, event.unit),
        all: event.total === undefined ? '?' : amount(event.total, event.unit),
      };
      if (!bar) {
        knownTotal = event.total;
        bar = new cliProgress.SingleBar(
          {
            stream: stderr as unknown as NodeJS.WritableStream,
            format:
              knownTotal === undefined
                ? '{phase} {done}'
                : '{phase} [{bar}] {percentage}% | {done} of {all} | {eta_formatted}',
            hideCursor: true,
            clearOnComplete: false,
            etaBuffer: 50,
          },
          cliProgress.Presets.shades_classic,
        );
        bar.start(knownTotal ?? 0, event.done, payload);
        return;
      }
      if (event.total !== undefined && event.total !== knownTotal) {
        knownTotal = event.total;
        bar.setTotal(event.total);
      }
      bar.update(event.done, payload);
    },
    stop() {
      bar?.stop();
      bar = undefined;
    },
  };
}
