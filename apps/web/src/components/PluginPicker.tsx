import { useRef, useState } from 'react';
import type { FormatEntry } from '../protocol';

/**
 * "Load format plugin…": a JavaScript module picked from disk (self-contained, exporting
 * `formats`, `converters` or a default entry) joins the format list of this page. Picking it
 * is the user's own act, which is why a file is allowed where a `?plugin=` URL must come from
 * this site (see the README).
 */
export function PluginPicker({
  onPlugin,
  onFailure,
}: {
  onPlugin(plugin: { file: File }): Promise<FormatEntry[]>;
  onFailure(message: string): void;
}) {
  const input = useRef<HTMLInputElement>(null);
  const [loaded, setLoaded] = useState<string | null>(null);
  return (
    <>
      <button type="button" onClick={() => input.current?.click()}>
        Load format plugin…
      </button>
      <input
        ref={input}
        type="file"
        accept=".js,.mjs,text/javascript"
        hidden
        data-testid="plugin-input"
        aria-label="Load a format plugin module"
        onChange={async (e) => {
          const file = e.currentTarget.files?.[0];
          e.currentTarget.value = '';
          if (!file) return;
          try {
            await onPlugin({ file });
            setLoaded(`format plugin ${file.name} loaded`);
          } catch (error) {
            onFailure((error as Error).message);
          }
        }}
      />
      {loaded && (
        <span className="muted" role="status" data-testid="plugin-loaded">
          {loaded}
        </span>
      )}
    </>
  );
}
