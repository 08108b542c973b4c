import { useState } from 'react';
import type { ParserClient } from '../client';
import { formatBytes } from '../format';
import { toBase64 } from '../values';
import { SelectionHashes } from './SelectionHashes';

/** The worker hands out at most 1 MiB per request; copies stay below that. */
const COPY_LIMIT = 1 << 20;
/** Saving gathers the bytes in memory first; beyond this the page would risk its heap. */
const SAVE_LIMIT = 256 << 20;

export interface SelectionToolsProps {
  client: ParserClient;
  sessionId: number;
  file: string | undefined;
  range: { start: number; end: number } | null;
  /** The download's name without extension (node name or file name). */
  name: string;
}

/** Copy the selected bytes as hex or base64, save them as a file, or hash them. */
export function SelectionTools({ client, sessionId, file, range, name }: SelectionToolsProps) {
  const [status, setStatus] = useState('');
  const length = range ? range.end - range.start : 0;

  const read = async (limit: number): Promise<Uint8Array> => {
    if (!range) return new Uint8Array();
    if (length > limit)
      throw new Error(`the selection (${formatBytes(length)}) is over ${formatBytes(limit)}`);
    const out = new Uint8Array(length);
    for (let at = 0; at < length; at += COPY_LIMIT) {
      const part = await client.request({
        type: 'bytes',
        sessionId,
        file,
        offset: range.start + at,
        length: Math.min(COPY_LIMIT, length - at),
      });
      out.set(part, at);
    }
    return out;
  };

  const run = async (what: string, action: () => Promise<void>) => {
    try {
      await action();
      setStatus(what);
    } catch (e) {
      setStatus((e as Error).message);
    }
  };

  const copy = (as: 'hex' | 'base64') =>
    run(`copied ${length} B as ${as}`, async () => {
      const bytes = await read(COPY_LIMIT);
      const text =
        as === 'hex' ? [...bytes].map((b) => b.toString(16).padStart(2, '0')).join(' ') : toBase64(bytes);
      await navigator.clipboard.writeText(text);
    });

  const save = () =>
    run(`saved ${formatBytes(length)}`, async () => {
      const bytes = await read(SAVE_LIMIT);
      const url = URL.createObjectURL(new Blob([bytes as BlobPart], { type: 'application/octet-stream' }));
      const a = document.createElement('a');
      a.href = url;
      a.download = `${name.replace(/[^\w.-]+/g, '_')}_${range!.start.toString(16)}-${range!.end.toString(16)}.bin`;
      a.click();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    });

  return (
    <>
      <div className="selection-tools" data-testid="selection-tools">
        <button type="button" disabled={!range || length === 0} onClick={() => copy('hex')}>
          copy hex
        </button>
        <button type="button" disabled={!range || length === 0} onClick={() => copy('base64')}>
          copy base64
        </button>
        <button type="button" disabled={!range || length === 0} onClick={save}>
          save bytes
        </button>
        {status && (
          <span className="muted" role="status" data-testid="selection-status">
            {status}
          </span>
        )}
      </div>
      <SelectionHashes client={client} sessionId={sessionId} file={file} range={range} />
    </>
  );
}
