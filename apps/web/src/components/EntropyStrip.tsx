import { useEffect, useId, useState } from 'react';
import { isAbort, type ParserClient } from '../client';
import { hexOffset } from '../format';
import type { ByteProfileView } from '../protocol';

/** Samples along the file: 256 blocks of 4 KiB read at most (1 MiB), whatever its size. */
const STRIPS = 256;

const bits = (n: number) => n.toFixed(2);

export interface ByteProfile {
  on: boolean;
  toggle(): void;
  profile: ByteProfileView | null;
  error: string | null;
}

/**
 * The byte entropy of a whole file, computed by the worker from sampled blocks, and only when
 * asked (`toggle`): it reads a block in every part of the file (over HTTP, a request each).
 */
export function useByteProfile(
  client: ParserClient,
  sessionId: number,
  file: string | undefined,
  size: number,
): ByteProfile {
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
  return { on, toggle: () => setOn((v) => !v), profile, error };
}

/** The toggle, in the hex toolbar; what the map shows is its description, in words. */
export function EntropyToggle({ state }: { state: ByteProfile }) {
  const id = useId();
  const values = state.profile?.samples.map((s) => s.entropy) ?? [];
  const summary = state.error
    ? `byte entropy: ${state.error}`
    : values.length
      ? `Byte entropy along the file, ${values.length} samples: ${bits(Math.min(...values))} to ${bits(Math.max(...values))} bits per byte`
      : '';
  return (
    <>
      <button
        type="button"
        className="entropy-toggle"
        aria-pressed={state.on}
        aria-describedby={summary ? id : undefined}
        title="Byte entropy along the file, beside the scrollbar (reads 256 blocks of 4 KiB)"
        onClick={state.toggle}
      >
        entropy
      </button>
      <span id={id} className="visually-hidden" data-testid="entropy-summary">
        {summary}
      </span>
    </>
  );
}

/**
 * The map itself, drawn in the scrubber's track at the same scale (top: the start of the file,
 * bottom: its end): strong where bytes look random (compressed, encrypted), faint where they
 * repeat (padding, zeros). Decoration for the eye: its numbers are the toggle's description.
 */
export function EntropyCells({ profile }: { profile: ByteProfileView | null }) {
  if (!profile) return null;
  return (
    <div className="entropy-cells" aria-hidden="true" data-testid="entropy-strip">
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
  );
}
