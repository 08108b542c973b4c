import { listWords } from '../format';
import type { FormatEntry, OpenInput } from '../protocol';
import { PluginPicker } from './PluginPicker';
import { SampleList } from './SampleList';

/** What can be dropped, in the words of the format list (built-in formats and loaded plugins). */
function DropText({ formats }: { formats: FormatEntry[] }) {
  const of = (role: FormatEntry['role'], kind?: FormatEntry['kind']) =>
    formats.filter((f) => f.role === role && (!kind || f.kind === kind));
  const files = of('format', 'file').map((f) => f.id.toUpperCase());
  const folders = of('format', 'directory').map((f) => f.id.toUpperCase());
  const parts: string[] = [];
  if (files.length) parts.push(`${listWords(files)} files`);
  if (folders.length) parts.push(`${listWords(folders)} folders (drop the folder)`);
  for (const f of of('container')) parts.push(`${f.title}s together with the file that reads them`);
  for (const f of of('convertible'))
    parts.push(`${f.title} files (${f.extensions.map((e) => `.${e}`).join(', ')}) to convert`);
  if (parts.length === 0) return <p>Loading the list of formats…</p>;
  return (
    <p data-testid="drop-formats">
      {parts.length < 2 ? parts[0] : `${parts.slice(0, -1).join(', ')}, or ${parts.at(-1)}`}.
    </p>
  );
}

export function EmptyPage({
  formats,
  onOpen,
  onPlugin,
  onFailure,
}: {
  formats: FormatEntry[];
  onOpen(input: OpenInput): void;
  onPlugin(plugin: { file: File }): Promise<FormatEntry[]>;
  onFailure(message: string): void;
}) {
  return (
    <main className="empty" data-testid="drop-zone">
      <div className="drop-hint">
        <h2>Drop a file or a folder here</h2>
        <DropText formats={formats} />
        <p className="muted">
          Nothing is uploaded: files are read in this tab, lazily, a few kilobytes at a time. A URL is read
          with HTTP range requests.
        </p>
        <SampleList onOpen={onOpen} />
        <section className="plugins" aria-label="Format plugins">
          <p className="muted">
            A format binscope does not ship? Load its plugin module (see the README):{' '}
            <PluginPicker onPlugin={onPlugin} onFailure={onFailure} />
          </p>
        </section>
      </div>
    </main>
  );
}
