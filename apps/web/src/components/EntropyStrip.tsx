import { useEffect, useState } from 'react';
import { isAbort, type ParserClient } from '../client';
import { hexOffset } from '../format';
import type { ByteProfileView } from '../protocol';

/** Samples along the file: 256 blocks of 4 KiB read at most (1 MiB), whatever its size. */
const STRIPS = 256;

const bits = (n: number) => n.toFixed(2);

/**
 * The byte entropy of the whole file beside the hex scrubber, at the same scale (top: the
 * start, bottom: the end): dark where bytes look random (compressed, encrypted), light where
 * they repeat (padding, zeros). Computed by the worker from sampled blocks, and only when
 * asked, since it reads a block in every part of the file (over HTTP, one request each).
 */
export function EntropyStrip({
  client,
  sessionId,
  file,
  size,
}: {
  client: ParserClient;
  sessionId: number;
  file: string | undefined;
  size: number;
}) {
  const [on, setOn] = useState(false);
  const [profile, setProfile] = useState<ByteProfileView | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    setProfile(null);
    setError(null);
    if (!on || size === 0) return;
    const controller = new AbortController();
    client
      .request({ type: 'byteProfile', sessionId, file, strips: STRIPS }, { signal: controller.signal })
      .then(setProfile)
      .catch((e: unknown) => {
        if (!isAbort(e)) setError(e instanceof Error ? e.message : String(e));
      });
    return () => controller.abort(new DOMException('cancelled', 'AbortError'));
  }, [on, client, sessionId, file, size]);

  const values = profile?.samples.map((s) => s.entropy) ?? [];
  const summary = profile
    ? `Byte entropy along the file, ${values.length} samples: ${bits(Math.min(...values))} to ${bits(Math.max(...values))} bits per byte`
    : '';
  return (
    <div className="entropy-column" data-testid="entropy-strip" data-done={!!profile}>
      <button
        type="button"
        className="entropy-toggle"
        aria-pressed={on}
        aria-label="Byte entropy map"
        title={error ?? 'Byte entropy along the file (reads 256 blocks of 4 KiB)'}
        onClick={() => setOn((v) => !v)}
      >
        H
      </button>
      {on && profile && (
        <div className="entropy-cells" role="img" aria-label={summary} title={summary}>
          {profile.samples.map((s) => (
            <div
              key={s.offset}
              data-testid="entropy-cell"
              data-offset={s.offset}
              data-length={s.length}
              data-entropy={s.entropy}
              title={`0x${hexOffset(s.offset, 1)}: ${bits(s.entropy)} bits per byte`}
              style={{
                background: `color-mix(in srgb, var(--accent) ${Math.round((s.entropy / 8) * 100)}%, var(--bg))`,
              }}
            />
          ))}
        </div>
      )}
    </div>
  );
}
