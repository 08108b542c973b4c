import { displayValue, formatBytes, hexDumpLines, listWords } from '../format';
import type { FormatEntry, Problem, SessionInfo, ValidationReport } from '../protocol';

export function SummaryPanel({ session }: { session: SessionInfo }) {
  const { summary } = session;
  const best = session.candidates[0];
  // Plugins often list a count again among their properties; show each fact once.
  const shown = new Set(
    [...Object.keys(summary?.counts ?? {}), ...(summary?.version ? ['version'] : [])].map((k) =>
      k.toLowerCase(),
    ),
  );
  const properties = summary?.properties.filter(([label]) => !shown.has(label.toLowerCase())) ?? [];
  return (
    <section className="panel" aria-labelledby="summary-h">
      <h2 id="summary-h">Summary</h2>
      <p className="format-line">
        <span
          className={`format-badge${session.format ? '' : ' unknown'}`}
          data-testid="format"
          data-format={session.format ?? 'unknown'}
        >
          {session.format ? session.format.toUpperCase() : 'unknown'}
        </span>{' '}
        <span>{session.title}</span>
      </p>
      <dl className="props">
        <dt>{session.source === 'url' ? 'URL' : session.source === 'directory' ? 'folder' : 'file'}</dt>
        <dd className="wrap" data-testid="summary-file">
          {session.mainFile ?? session.name}
        </dd>
        {best && (
          <>
            <dt>detected by</dt>
            <dd>{best.reason}</dd>
          </>
        )}
        {summary?.version && (
          <>
            <dt>version</dt>
            <dd>{summary.version}</dd>
          </>
        )}
        {summary &&
          Object.entries(summary.counts).map(([key, value]) => (
            <CountRow key={`c-${key}`} label={key} value={value} />
          ))}
        {properties.map(([label, value]) => (
          <PropRow key={`p-${label}`} label={label} value={displayValue(value)} />
        ))}
      </dl>
    </section>
  );
}

function CountRow({ label, value }: { label: string; value: number }) {
  return (
    <>
      <dt>{label}</dt>
      <dd data-testid={`count-${label}`}>{value.toLocaleString('en-US')}</dd>
    </>
  );
}

function PropRow({ label, value }: { label: string; value: string }) {
  return (
    <>
      <dt>{label}</dt>
      <dd className="wrap" title={value}>
        {value.length > 160 ? `${value.slice(0, 160)}…` : value}
      </dd>
    </>
  );
}

export interface ProblemsProps {
  report: ValidationReport | null;
  openError?: SessionInfo['openError'];
  running: boolean;
  /** The last run was stopped by the user before it finished. */
  cancelled: boolean;
  progress: { done: number; total?: number } | null;
  canValidate: boolean;
  remote: boolean;
  onValidate(): void;
  onCancel(): void;
  onJump(problem: Problem): void;
}

export function ProblemsPanel(props: ProblemsProps) {
  const { report, openError, running, progress } = props;
  const percent = progress?.total ? Math.floor((100 * progress.done) / progress.total) : undefined;
  // Problems have no identity but their place in the report.
  const items: Array<{ problem: Problem; level: 'error' | 'warning'; id: string }> = [
    ...(report?.errors ?? []).map((problem, n) => ({ problem, level: 'error' as const, id: `e${n}` })),
    ...(report?.warnings ?? []).map((problem, n) => ({ problem, level: 'warning' as const, id: `w${n}` })),
  ];
  return (
    <section className="panel" aria-labelledby="problems-h" data-testid="problems">
      <h2 id="problems-h">Validation</h2>
      {openError && (
        <p className="open-error" role="alert" data-testid="open-error">
          Cannot open: <strong>{openError.code ?? openError.name}</strong> {openError.message}
          {openError.offset !== undefined && <> at byte {openError.offset}</>}
        </p>
      )}
      {running && (
        <p className="validating" data-testid="validation-progress" data-percent={percent ?? ''}>
          <span aria-live="polite">validating…{percent !== undefined && ` ${percent}%`}</span>
          {percent !== undefined && <progress max={100} value={percent} aria-label="validation progress" />}
          <button type="button" onClick={props.onCancel}>
            cancel
          </button>
        </p>
      )}
      {!running && !report && props.cancelled && (
        <p className="muted" data-testid="validation-cancelled">
          validation cancelled
        </p>
      )}
      {!running && !report && props.canValidate && (
        <p>
          <button type="button" onClick={props.onValidate}>
            Validate
          </button>{' '}
          {props.remote && <span className="muted">reads the whole file over the network</span>}
        </p>
      )}
      {report && (
        <p className={report.valid ? 'valid' : 'invalid'} data-testid="validity" data-valid={report.valid}>
          {report.valid ? '✓ valid' : '✗ invalid'}: {report.errors.length} error
          {report.errors.length === 1 ? '' : 's'}, {report.warnings.length} warning
          {report.warnings.length === 1 ? '' : 's'}
        </p>
      )}
      {items.length > 0 && (
        <ul className="problems">
          {items.map(({ problem, level, id }) => (
            <li key={id} className={level} data-testid={`problem-${level}`} data-code={problem.code}>
              <button
                type="button"
                onClick={() => props.onJump(problem)}
                disabled={problem.offset === undefined}
                title={problem.offset === undefined ? 'no byte offset' : `show byte ${problem.offset}`}
              >
                <span className="code">{problem.code}</span>
                <span className="where">
                  {problem.file ? `${problem.file} ` : ''}
                  {problem.offset !== undefined ? `@${problem.offset}` : ''}
                </span>
                <span className="msg">{problem.message}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

export function FilesPanel({
  session,
  current,
  onShow,
}: {
  session: SessionInfo;
  /** The session path of the file the hex view shows. */
  current: string | undefined;
  onShow(path: string): void;
}) {
  if (session.files.length <= 1) return null;
  return (
    <section className="panel" aria-labelledby="files-h">
      <h2 id="files-h">Files ({session.files.length})</h2>
      <ul className="files">
        {session.files.slice(0, 300).map((f) => (
          <li key={f.path}>
            <button
              type="button"
              className={f.path === current ? 'current' : ''}
              aria-current={f.path === current ? 'true' : undefined}
              data-testid="file-entry"
              data-path={f.path}
              onClick={() => onShow(f.path)}
              title="show its bytes"
            >
              <span className="wrap">{f.path}</span>
              <span className="muted">
                {f.format ? `${f.format} · ` : ''}
                {formatBytes(f.size)}
              </span>
            </button>
          </li>
        ))}
      </ul>
      {session.files.length > 300 && <p className="muted">and {session.files.length - 300} more</p>}
    </section>
  );
}

const article = (word: string) => (/^[AEFHILMNORSX]/.test(word.toUpperCase()) ? 'an' : 'a');

/** Why nothing reads this file or folder, in the words of the format list. */
function UnknownReason({ session, formats }: { session: SessionInfo; formats: FormatEntry[] }) {
  const entry = formats.find((f) => f.id === session.format);
  if (entry?.role === 'container')
    return (
      <p data-testid="container">
        This is {article(entry.title)} {entry.title} ({entry.id}): binscope reads it through another format,
        never on its own. Open it together with the file that reads it (select them all, or pick their
        folder).
      </p>
    );
  if (entry?.role === 'convertible')
    return (
      <p data-testid="convertible">
        This is {article(entry.title)} {entry.title}: binscope converts it (see the Convert tab) but has no
        reader for it here.
      </p>
    );
  if (session.nearMiss)
    return (
      <p data-testid="near-miss">
        Nearly {article(session.nearMiss.id)} <strong>{session.nearMiss.id.toUpperCase()}</strong> file, but
        its signature is damaged: <code>BadMagic</code> — {session.nearMiss.detail}.
      </p>
    );
  const folder = session.source === 'directory';
  const readable = formats.filter((f) => f.role === 'format' && f.kind === (folder ? 'directory' : 'file'));
  return (
    <p>
      None of the {folder ? 'folder ' : ''}formats binscope knows (
      {listWords(readable.map((f) => f.id.toUpperCase()))}) matches this {folder ? 'folder' : 'file'}
      {folder ? '' : ': no magic signature fits its first bytes'}.
    </p>
  );
}

/** The honest view of a file nothing reads: what it is (or is not), and its first bytes. */
export function UnknownView({ session, formats }: { session: SessionInfo; formats: FormatEntry[] }) {
  const entry = formats.find((f) => f.id === session.format);
  return (
    <section className="unknown" data-testid="unknown-view">
      <h2>{entry ? entry.title : session.source === 'directory' ? 'Unknown folder' : 'Unknown format'}</h2>
      <UnknownReason session={session} formats={formats} />
      {session.headHex && (
        <>
          <h3>First {session.headHex.length / 2} bytes</h3>
          <pre className="dump" data-testid="head-bytes">
            {hexDumpLines(session.headHex)}
          </pre>
        </>
      )}
    </section>
  );
}
