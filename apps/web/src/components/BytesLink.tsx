import { createContext, type ReactNode, useContext } from 'react';

/** Where a value's bytes are: a range of the session's main file, or of `file` (a folder's member). */
export interface ByteLocation {
  file?: string;
  offset: number;
  length: number;
}

/** Shows a range in the hex view (set by the App; data views call it when a cell is clicked). */
export const ShowBytesContext = createContext<((location: ByteLocation) => void) | null>(null);

/**
 * A table cell whose value can be traced to its bytes: clicking it opens the structure tab
 * with those bytes highlighted in the hex view. `note` says what is highlighted when it is
 * not the value itself (e.g. the compressed block that holds it).
 */
export function BytesCell({
  location,
  children,
  className,
  note,
}: {
  location: ByteLocation | undefined;
  children: ReactNode;
  className?: string;
  note?: string;
}) {
  const show = useContext(ShowBytesContext);
  if (!show || !location) return <td className={className}>{children}</td>;
  const where = `${location.length} byte${location.length === 1 ? '' : 's'} at 0x${location.offset.toString(16)}`;
  return (
    <td className={className}>
      <button
        type="button"
        className="cell-link"
        data-testid="bytes-cell"
        data-offset={location.offset}
        data-length={location.length}
        title={`show its bytes: ${note ? `${note}, ` : ''}${where}${location.file ? ` of ${location.file}` : ''}`}
        onClick={() => show(location)}
      >
        {children}
      </button>
    </td>
  );
}

/** A "bytes" button for a whole item (a table, a payload) rather than one cell. */
export function BytesButton({
  location,
  label = 'show bytes',
  what,
}: {
  location: ByteLocation;
  label?: string;
  /** What the bytes are of, for the accessible name when many such buttons share a label. */
  what?: string;
}) {
  const show = useContext(ShowBytesContext);
  if (!show) return null;
  return (
    <button
      type="button"
      className="bytes-button"
      data-testid="bytes-button"
      data-offset={location.offset}
      data-length={location.length}
      aria-label={what ? `${label} of ${what}` : undefined}
      onClick={() => show(location)}
    >
      {label}
    </button>
  );
}
