import { createContext, useContext, useState } from 'react';
import type { ParserClient } from '../../client';
import type { Field } from '@binscope/core';
import type { RecordView, SerializedError, ViewValue } from '../../protocol';
import { BytesButton } from '../BytesLink';
import { ItemError } from '../ItemError';
import { isCut, RichValue } from './RichValue';

/** Which table's records are shown, for the detail requests of their values. */
export interface DataSource {
  client: ParserClient;
  sessionId: number;
  table: string;
}
export const DataSourceContext = createContext<DataSource | null>(null);

/** "record 12", or the record's key when its schema names one. */
export function recordTitle(record: RecordView, key: string | undefined): string {
  const named = key ? record.values[key] : undefined;
  if (named && (named.kind === 'string' || named.kind === 'number')) return `${key} ${named.text}`;
  return `record ${record.index}`;
}

/** One value of a card; a value the page has only part of can be asked for at detail size. */
function FieldValue({ record, field, label }: { record: RecordView; field: string; label: string }) {
  const source = useContext(DataSourceContext);
  const [detail, setDetail] = useState<ViewValue | null>(null);
  const [state, setState] = useState<'idle' | 'loading' | SerializedError>('idle');
  const value = detail ?? record.values[field];
  const error = record.errors?.[field];
  if (error) return <ItemError what="✗" error={error} />;
  if (!value) return <span className="muted">absent</span>;
  const more = async () => {
    if (!source) return;
    setState('loading');
    try {
      const { client, sessionId, table } = source;
      setDetail(await client.request({ type: 'value', sessionId, table, index: record.index, field }));
      setState('idle');
    } catch (e) {
      setState({ name: 'Error', message: (e as Error).message });
    }
  };
  return (
    <>
      <RichValue value={value} label={label} />
      {!detail && isCut(value) && source && (
        <button type="button" className="link-button" onClick={more} disabled={state === 'loading'}>
          {state === 'loading' ? 'reading…' : 'show all'}
        </button>
      )}
      {typeof state === 'object' && <ItemError what="✗" error={state} />}
    </>
  );
}

/**
 * A record as a card: each field's name (with a button to its bytes) and its value drawn by
 * its logical type. A record with unreadable values is marked, each such value with its error.
 */
export function RecordCard({
  record,
  fields,
  schemaKey,
  columnErrors,
}: {
  record: RecordView;
  fields: readonly Field[];
  schemaKey?: string;
  columnErrors: Record<string, SerializedError>;
}) {
  const title = recordTitle(record, schemaKey);
  const bad = !!record.problem || Object.keys(record.errors ?? {}).length > 0;
  return (
    <article
      className={`card${bad ? ' bad' : ''}`}
      data-testid="record-card"
      data-bad={bad ? 'true' : undefined}
    >
      <h3>{title}</h3>
      {record.problem && (
        <p role="alert">
          <ItemError what="unreadable:" error={record.problem} />
        </p>
      )}
      <dl className="kv">
        {/* Absent fields are left out (a null is shown, as null); so are they in the JSON output. */}
        {fields
          .filter((f) => f.name in record.values || record.errors?.[f.name] || columnErrors[f.name])
          .map((f) => (
            <div className="kv-row" key={f.name}>
              <dt>
                <span className="field-name">{f.name}</span>
                <BytesButton places={record.locations[f.name]} what={`${f.name} of ${title}`} />
              </dt>
              <dd>
                {columnErrors[f.name] ? (
                  <span className="muted">—</span>
                ) : (
                  <FieldValue record={record} field={f.name} label={`${title} ${f.name}`} />
                )}
              </dd>
            </div>
          ))}
      </dl>
    </article>
  );
}
