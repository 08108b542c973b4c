import type { SelectionHistory } from '../hooks/useSelectionHistory';

/** Back and forward through past selections (also the browser's own buttons and Alt+Left / Alt+Right). */
export function HistoryButtons({ history }: { history: SelectionHistory }) {
  return (
    <fieldset className="history-buttons" aria-label="Selection history">
      <button
        type="button"
        onClick={history.back}
        disabled={!history.canBack}
        aria-label="Back to the previous selection"
        title="Back to the previous selection (Alt+Left)"
        aria-keyshortcuts="Alt+ArrowLeft"
      >
        <span aria-hidden="true">←</span> Back
      </button>
      <button
        type="button"
        onClick={history.forward}
        disabled={!history.canForward}
        aria-label="Forward to the next selection"
        title="Forward to the next selection (Alt+Right)"
        aria-keyshortcuts="Alt+ArrowRight"
      >
        Forward <span aria-hidden="true">→</span>
      </button>
    </fieldset>
  );
}
