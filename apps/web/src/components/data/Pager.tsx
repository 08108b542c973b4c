import { useState } from 'react';

export interface Page {
  offset: number;
  limit: number;
}

/**
 * Previous / next paging with a "go to" box. The total shows when the reader knows it
 * without reading everything; otherwise "next" follows whether more records came.
 */
export function Pager({
  page,
  total,
  shown,
  more,
  onPage,
  unit = 'records',
}: {
  page: Page;
  total: number | undefined;
  /** Records on this page. */
  shown: number;
  more: boolean;
  onPage(page: Page): void;
  unit?: string;
}) {
  const [jump, setJump] = useState('');
  const last = total === undefined ? undefined : Math.max(0, total - 1);
  const end = page.offset + shown;
  return (
    <fieldset className="pager" aria-label={`${unit} paging`}>
      <button
        type="button"
        disabled={page.offset === 0}
        onClick={() => onPage({ ...page, offset: Math.max(0, page.offset - page.limit) })}
      >
        ◀ previous
      </button>
      <span data-testid="page-range">
        {unit}{' '}
        {shown === 0 ? '–' : `${page.offset.toLocaleString('en-US')}–${(end - 1).toLocaleString('en-US')}`}
        {total !== undefined && ` of ${total.toLocaleString('en-US')}`}
      </span>
      <button
        type="button"
        disabled={!more && (total === undefined || end >= total)}
        onClick={() => onPage({ ...page, offset: page.offset + page.limit })}
      >
        next ▶
      </button>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          const n = Number(jump);
          if (Number.isSafeInteger(n) && n >= 0)
            onPage({ ...page, offset: last === undefined ? n : Math.min(n, last) });
        }}
      >
        <label>
          go to{' '}
          <input
            value={jump}
            onChange={(e) => setJump(e.target.value)}
            size={8}
            inputMode="numeric"
            aria-label={`Go to record`}
          />
        </label>
      </form>
    </fieldset>
  );
}
