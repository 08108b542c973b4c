import type { ParserClient } from '../client';
import { type Bookmarks, currentSelection } from '../hooks/useBookmarks';
import type { Navigation } from '../hooks/useNavigation';
import type { Validation } from '../hooks/useValidation';
import type { LocatedDefect, Problem, SessionInfo } from '../protocol';
import type { Bookmark } from '../shareLink';
import { BookmarksPanel } from './BookmarksPanel';
import { DataInspector } from './DataInspector';
import { DefectList } from './DefectList';
import { FilesPanel, ProblemsPanel, SummaryPanel } from './Panels';

/** The file's details beside the views: summary, validation, defects, the byte inspector, its files. */
export function Sidebar({
  client,
  session,
  nav,
  validation,
  bookmarks,
  onBookmark,
  onValidate,
  onDefect,
  onProblem,
}: {
  client: ParserClient;
  session: SessionInfo;
  nav: Navigation;
  validation: Validation;
  bookmarks: Bookmarks;
  onBookmark(bookmark: Bookmark): void;
  onValidate(): void;
  onDefect(defect: LocatedDefect): void;
  onProblem(problem: Problem): void;
}) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: the sidebar scrolls on its own; keyboard users must reach its overflow.
    <aside className="sidebar" aria-label="File details" tabIndex={0}>
      <SummaryPanel session={session} />
      {(session.canValidate || session.openError) && (
        <ProblemsPanel
          report={validation.report}
          openError={session.openError}
          running={validation.running}
          cancelled={validation.cancelled}
          progress={validation.progress}
          canValidate={session.canValidate}
          remote={session.source === 'url'}
          onValidate={onValidate}
          onCancel={validation.cancel}
          onJump={onProblem}
        />
      )}
      <DefectList located={session.located} onSelect={onDefect} />
      {nav.hexFile !== undefined && (
        <DataInspector client={client} sessionId={session.sessionId} file={nav.hexFile} cursor={nav.cursor} />
      )}
      <BookmarksPanel bookmarks={bookmarks} selection={currentSelection(nav)} onJump={onBookmark} />
      <FilesPanel session={session} current={nav.hexFile} onShow={(path) => nav.showFile(path)} />
    </aside>
  );
}
