import { useCallback, useEffect, useState } from 'react';
import type { ParserClient } from '../client';
import type { FormatEntry } from '../protocol';
import { readPluginParams } from '../shareLink';

export interface Formats {
  /** The worker's list: built-in formats and the plugins loaded into this page. */
  entries: FormatEntry[];
  /** True once the plugins the address bar names are loaded (or failed). */
  ready: boolean;
  /** Loads a format plugin module: a same-origin URL, or a file the user picked. */
  load(plugin: { url: string } | { file: File }): Promise<FormatEntry[]>;
}

/**
 * The format list the page names formats from, asked of the worker (the page bundle imports
 * no format entry: a `/magic` entry's loader would pull every parser into the page's chunks).
 * `?plugin=<URL>` loads plugins before anything opens; a failure goes to `onFailure`.
 */
export function useFormats(client: ParserClient, onFailure: (message: string) => void): Formats {
  const [entries, setEntries] = useState<FormatEntry[]>([]);
  const [ready, setReady] = useState(false);

  const load = useCallback(
    async (plugin: { url: string } | { file: File }) => {
      const list = await client.request({ type: 'loadPlugin', ...plugin });
      setEntries(list);
      return list;
    },
    [client],
  );

  // biome-ignore lint/correctness/useExhaustiveDependencies: once, on load.
  useEffect(() => {
    let live = true;
    (async () => {
      for (const url of readPluginParams()) {
        try {
          await load({ url });
        } catch (e) {
          if (live) onFailure((e as Error).message);
        }
      }
      const list = await client.request({ type: 'formats' });
      if (!live) return;
      setEntries(list);
      setReady(true);
    })().catch((e: Error) => live && onFailure(e.message));
    return () => {
      live = false;
    };
  }, [client]);

  return { entries, ready, load };
}
