import { createContext, type ReactNode, useContext } from 'react';
import type { LocationView } from '../protocol';

/** Shows a range in the hex view (set by the App; data views call it when a value's bytes are asked for). */
export const ShowBytesContext = createContext<((location: LocationView) => void) | null>(null);

function describe(places: readonly LocationView[]): string {
  const [first] = places;
  const where = `${first.length} byte${first.length === 1 ? '' : 's'} at 0x${first.offset.toString(16)}${first.file ? ` of ${first.file}` : ''}`;
  return places.length > 1 ? `${where} (the first of ${places.length} places it is stored in)` : where;
}

/**
 * A table cell whose value can be traced to its bytes: clicking it opens the structure tab
 * with those bytes (the plugin's locations for the value; the first when there are several)
 * selected in the hex view.
 */
export function BytesCell({
  places,
  children,
  className,
}: {
  places: readonly LocationView[] | undefined;
  children: ReactNode;
  className?: string;
}) {
  const show = useContext(ShowBytesContext);
  if (!show || !places?.length) return <td className={className}>{children}</td>;
  const [first] = places;
  return (
    <td className={`${className ?? ''} linked`}>
      <button
        type="button"
        className="cell-link"
        data-testid="bytes-cell"
        data-offset={first.offset}
        data-length={first.length}
        data-file={first.file}
        title={`show its bytes: ${describe(places)}`}
        onClick={() => show(first)}
      >
        {children}
      </button>
    </td>
  );
}

/** A "bytes" button for a whole value (a card's field) rather than a table cell. */
export function BytesButton({
  places,
  label = 'bytes',
  what,
}: {
  places: readonly LocationView[] | undefined;
  label?: string;
  /** What the bytes are of, for the accessible name when many such buttons share a label. */
  what?: string;
}) {
  const show = useContext(ShowBytesContext);
  if (!show || !places?.length) return null;
  const [first] = places;
  return (
    <button
      type="button"
      className="bytes-button"
      data-testid="bytes-button"
      data-offset={first.offset}
      data-length={first.length}
      data-file={first.file}
      title={`show its bytes: ${describe(places)}`}
      aria-label={what ? `${label} of ${what}` : undefined}
      onClick={() => show(first)}
    >
      {label}
    </button>
  );
}
