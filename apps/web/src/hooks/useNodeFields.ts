import { useEffect, useState } from 'react';
import type { ParserClient } from '../client';
import type { TreeNodeView } from '../protocol';
import type { Range } from './useNavigation';

/** The selected node's children's ranges in its own file, coloured in the hex view so each field's bytes stand out. */
export function useNodeFields(
  client: ParserClient,
  sessionId: number | undefined,
  selected: { path: number[]; node: TreeNodeView } | null,
): Range[] {
  const [fields, setFields] = useState<Range[]>([]);
  useEffect(() => {
    setFields([]);
    if (sessionId === undefined || !selected || selected.node.childCount === 0) return;
    const controller = new AbortController();
    client
      .request(
        { type: 'children', sessionId, path: selected.path, start: 0, end: 256 },
        { signal: controller.signal },
      )
      .then((children) =>
        setFields(
          children
            .filter((c) => c.length > 0 && c.file === selected.node.file)
            .map((c) => ({ start: c.offset, end: c.offset + c.length }))
            .sort((a, b) => a.start - b.start),
        ),
      )
      .catch(() => {});
    return () => controller.abort();
  }, [client, sessionId, selected]);
  return fields;
}
