import { useCallback, useState } from 'react';
import { isAbort, type ParserClient } from '../client';
import type { OpenInput, SessionInfo } from '../protocol';
import { firstDefect } from '../components/DefectList';
import type { Navigation } from './useNavigation';
import type { Validation } from './useValidation';

export type Tab = 'structure' | 'data' | 'convert' | 'compare';

export interface SessionState {
  session: SessionInfo | null;
  /** What is being opened, while it is. */
  busy: string | null;
  tab: Tab;
  setTab(tab: Tab): void;
  /** Bumped when inspect mode replaces the tree, so the tree view drops the children it loaded. */
  treeVersion: number;
  open(input: OpenInput): Promise<void>;
  /** Shows a session the worker opened (a conversion's output). */
  adopt(info: SessionInfo): void;
  validate(): void;
}

/** What the status line says while `input` opens. */
export const opening = (input: OpenInput) =>
  input.kind === 'url'
    ? `opening ${input.url}…`
    : `opening ${input.folder ?? (input.files.length === 1 ? input.files[0].path : `${input.files.length} files`)}…`;

/** The open session's lifecycle: open, show (first defect selected), validate, re-inspect. */
export function useSession(
  client: ParserClient,
  [session, setSession]: [
    SessionInfo | null,
    (session: SessionInfo | ((s: SessionInfo | null) => SessionInfo | null)) => void,
  ],
  nav: Navigation,
  validation: Validation,
  onFailure: (message: string | null) => void,
): SessionState {
  const [busy, setBusy] = useState<string | null>(null);
  const [tab, setTab] = useState<Tab>('structure');
  const [treeVersion, setTreeVersion] = useState(0);

  /** Validation found errors in a file that opened: show the tree inspect mode marks them in. */
  const reinspect = useCallback(
    (s: SessionInfo) => {
      client
        .request({ type: 'inspect', sessionId: s.sessionId })
        .then(({ root, located }) => {
          const next = { ...s, root, located };
          setSession((current) => (current?.sessionId === s.sessionId ? next : current));
          setTreeVersion((v) => v + 1);
          const defect = firstDefect(located);
          if (defect) nav.showDefect(next, defect);
        })
        .catch(() => {});
    },
    [client, nav.showDefect, setSession],
  );

  const validate = useCallback(
    (s: SessionInfo) =>
      // Errors only: a valid file with warnings keeps its tree and the user's place in it.
      validation.start(s, () => {
        if (s.located.length === 0) reinspect(s);
      }),
    [validation.start, reinspect],
  );

  const adopt = useCallback(
    (info: SessionInfo) => {
      setSession(info);
      validation.reset();
      nav.reset(info);
      setTab(info.role === 'convertible' && info.converters.length > 0 ? 'convert' : 'structure');
      const defect = firstDefect(info.located);
      if (defect) nav.showDefect(info, defect);
      if (info.autoValidate) validate(info);
      document.title = `${info.mainFile ?? info.name} · binscope`;
    },
    [validation.reset, nav.reset, nav.showDefect, validate, setSession],
  );

  const open = useCallback(
    async (input: OpenInput) => {
      validation.reset();
      onFailure(null);
      setBusy(opening(input));
      try {
        adopt(await client.request({ type: 'open', input }));
      } catch (e) {
        if (!isAbort(e)) onFailure((e as Error).message);
      } finally {
        setBusy(null);
      }
    },
    [client, adopt, validation.reset, onFailure],
  );

  return {
    session,
    busy,
    tab,
    setTab,
    treeVersion,
    open,
    adopt,
    validate: () => session && validate(session),
  };
}
