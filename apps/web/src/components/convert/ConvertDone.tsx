import { displayValue } from '../../format';
import type { ConvertResult } from '../../protocol';

/** What a finished conversion reports: where it went, its figures and warnings, and the output to open. */
export function ConvertDone({
  done,
  saved,
  onOpen,
}: {
  done: ConvertResult;
  saved: { url: string; name: string } | null;
  onOpen(): void;
}) {
  const details = Object.entries(done.details);
  return (
    <section className="converted" data-testid="convert-done" aria-live="polite">
      <p className="valid">
        ✓ {done.output === 'directory' ? `saved as folder ${done.name}` : `converted: ${done.name}`}
      </p>
      {details.length > 0 && (
        <dl className="props">
          {details.map(([key, value]) => (
            <div key={key} className="kv-row">
              <dt>{key}</dt>
              <dd>{displayValue(value)}</dd>
            </div>
          ))}
        </dl>
      )}
      {done.warnings.length > 0 && (
        <ul className="warnings">
          {done.warnings.map((w) => (
            <li key={w}>{w}</li>
          ))}
        </ul>
      )}
      {saved && (
        <p>
          <a href={saved.url} download={saved.name}>
            download {saved.name} again
          </a>
        </p>
      )}
      {done.output !== 'directory' && (
        <button type="button" onClick={onOpen} data-testid="open-converted">
          Open the converted output
        </button>
      )}
    </section>
  );
}
