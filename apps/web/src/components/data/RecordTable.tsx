import { type Field, fieldTypeName } from '@binscope/core';
import type { RecordsPage } from '../../protocol';
import { BytesCell } from '../BytesLink';
import { errorText, ItemError } from '../ItemError';
import { CompactValue } from './CompactValue';

/**
 * Records as a table, a value per cell on one line. A cell with locations links to its bytes;
 * the row's number opens the record as a card, where long values show whole.
 */
export function RecordTable({
  page,
  fields,
  current,
  onRecord,
}: {
  page: RecordsPage;
  fields: readonly Field[];
  /** The record open as a card, if any. */
  current: number | null;
  onRecord(index: number): void;
}) {
  const shown = fields.filter((f) => page.columns.includes(f.name));
  return (
    <div className="table-wrap">
      <table className="records" data-testid="records-table">
        <thead>
          <tr>
            <th scope="col">#</th>
            {shown.map((f) => {
              const error = page.columnErrors[f.name];
              return (
                <th
                  scope="col"
                  key={f.name}
                  className={error ? 'bad' : undefined}
                  title={error ? errorText(error) : fieldTypeName(f)}
                >
                  {f.name}
                  {error && <span className="bad-mark"> ⚠ unreadable</span>}
                </th>
              );
            })}
          </tr>
        </thead>
        <tbody>
          {page.records.map((record) => (
            <tr key={record.index} className={record.index === current ? 'current' : undefined}>
              <th scope="row">
                <button
                  type="button"
                  className="link-button row-open"
                  aria-pressed={record.index === current}
                  aria-label={`record ${record.index}`}
                  title="open the record as a card"
                  onClick={() => onRecord(record.index)}
                >
                  {record.index}
                </button>
                {record.problem && <ItemError what="" error={record.problem} />}
              </th>
              {shown.map((f) => {
                const error = page.columnErrors[f.name] ?? record.errors?.[f.name];
                const value = record.values[f.name];
                if (page.columnErrors[f.name])
                  return (
                    <td key={f.name} className="bad">
                      —
                    </td>
                  );
                if (error)
                  return (
                    <td key={f.name} className="bad">
                      <ItemError what="✗" error={error} />
                    </td>
                  );
                return (
                  <BytesCell
                    key={f.name}
                    places={record.locations[f.name]}
                    className={value?.kind === 'number' ? 'num' : undefined}
                  >
                    {value ? <CompactValue value={value} label={`record ${record.index} ${f.name}`} /> : ''}
                  </BytesCell>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
