import type { SerializedError } from '../protocol';

/** What went wrong reading one column, sample or value: code, message and byte offset. */
export function errorText(error: SerializedError): string {
  const at = error.offset !== undefined ? ` at byte ${error.offset}` : '';
  return `${error.code ?? error.name}${at}: ${error.message}`;
}

/** A readable mark on an item that could not be decoded, so the rest of the page still shows. */
export function ItemError({ what, error }: { what: string; error: SerializedError }) {
  return (
    <span className="item-error" data-testid="item-error" data-code={error.code ?? error.name}>
      <strong>{what}</strong> {errorText(error)}
    </span>
  );
}
