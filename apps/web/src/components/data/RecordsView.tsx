import { type Field, fieldTypeName, type LogicalType } from '@binscope/core';
import { useMemo, useState } from 'react';
import type { ParserClient } from '../../client';
import type { SessionInfo, TableView } from '../../protocol';
import { ItemError } from '../ItemError';
import { ExportControl } from './ExportControl';
import { type Page, Pager } from './Pager';
import { DataSourceContext, RecordCard } from './RecordCard';
import { RecordTable } from './RecordTable';
import { StatsView } from './StatsView';
import { TablePicker, useTables } from './TablePicker';
import { useRecords } from './useRecords';

type Layout = 'table' | 'cards' | 'statistics';

/** Types whose values need more than a line: records holding them read best as cards. */
const RICH = new Set<LogicalType['kind']>(['image', 'ndarray', 'bytes', 'json', 'list', 'struct']);
const defaultLayout = (fields: readonly Field[]): Layout =>
  fields.some((f) => RICH.has(f.type.kind)) ? 'cards' : 'table';
const PAGE_SIZE: Record<Layout, number> = { table: 50, cards: 12, statistics: 12 };

/**
 * The data of any format: its record tables (the reader's records and `reader.tables`), a
 * page at a time, each value drawn by its logical type, each linked to its bytes by the
 * locations the plugin gives. Only the chosen fields are read.
 */
export function RecordsView({ client, session }: { client: ParserClient; session: SessionInfo }) {
  const { tables, more, error, listMore } = useTables(client, session);
  const [name, setName] = useState(tables[0]?.name ?? '');
  const table = tables.find((t) => t.name === name) ?? tables[0];
  if (!table)
    return (
      <p className="muted data-view" role={error ? 'alert' : undefined}>
        {error ?? (more || session.listsTables ? 'listing the tables…' : 'No records to show for this file.')}
      </p>
    );
  return (
    <TableData
      key={`${session.sessionId}:${table.name}`}
      client={client}
      sessionId={session.sessionId}
      fileName={session.mainFile ?? session.name}
      table={table}
      picker={
        <TablePicker tables={tables} current={table.name} onTable={setName} more={more} onMore={listMore} />
      }
    />
  );
}

/** A field's type as the format names it, cut when the format says more than a name. */
function TypeName({ field }: { field: Field }) {
  const name = fieldTypeName(field);
  const short = name.length > 24 ? `${name.slice(0, 23)}…` : name;
  return (
    <span className="muted" title={name === short ? undefined : name}>
      {short}
    </span>
  );
}

function TableData({
  client,
  sessionId,
  fileName,
  table,
  picker,
}: {
  client: ParserClient;
  sessionId: number;
  /** The opened file's name (export file names start with it). */
  fileName: string;
  table: TableView;
  picker: React.ReactNode;
}) {
  const fields = table.schema.fields;
  const [layout, setLayout] = useState<Layout>(() => defaultLayout(fields));
  const [page, setPage] = useState<Page>({ offset: 0, limit: PAGE_SIZE[layout] });
  const [hidden, setHidden] = useState<Set<string>>(() => new Set());
  const [current, setCurrent] = useState<number | null>(null);
  const chosen = fields.filter((f) => !hidden.has(f.name));
  const columns = hidden.size ? chosen.map((f) => f.name) : undefined;
  const { data, error, loading } = useRecords(client, sessionId, table.name, page, columns);
  const source = useMemo(() => ({ client, sessionId, table: table.name }), [client, sessionId, table.name]);
  const open = data?.records.find((r) => r.index === current);
  const columnErrors = Object.entries(data?.columnErrors ?? {});
  const toggle = (field: string) =>
    setHidden((old) => {
      const next = new Set(old);
      if (next.has(field)) next.delete(field);
      else next.add(field);
      return next;
    });
  const switchLayout = (next: Layout) => {
    setLayout(next);
    setPage((p) => ({ offset: p.offset, limit: PAGE_SIZE[next] }));
  };

  return (
    <DataSourceContext.Provider value={source}>
      <div className="data-view" data-testid="data-view" data-layout={layout} aria-busy={loading}>
        <div className="data-toolbar">
          {picker}
          <fieldset className="layout-pick">
            <legend className="visually-hidden">layout</legend>
            {(['table', 'cards', 'statistics'] as const).map((l) => (
              <label key={l}>
                <input type="radio" name="layout" checked={layout === l} onChange={() => switchLayout(l)} />{' '}
                {l}
              </label>
            ))}
          </fieldset>
          {layout !== 'statistics' && (
            <Pager
              page={page}
              total={table.count}
              shown={data?.records.length ?? 0}
              more={!!data?.more}
              onPage={(p) => {
                setPage(p);
                setCurrent(null);
              }}
            />
          )}
          <ExportControl
            client={client}
            sessionId={sessionId}
            source={fileName}
            table={table}
            columns={columns}
            shown={{ offset: data?.offset ?? page.offset, count: data?.records.length ?? 0 }}
          />
        </div>
        {fields.length > 1 && (
          // Many fields start folded, so the records stay in view on a small screen.
          <details className="columns-details" open={fields.length <= 8}>
            <summary>
              fields ({chosen.length} of {fields.length} read)
            </summary>
            <fieldset className="columns-pick" data-testid="column-picker">
              <legend className="visually-hidden">fields to read</legend>
              {fields.map((f) => (
                <label key={f.name}>
                  <input type="checkbox" checked={!hidden.has(f.name)} onChange={() => toggle(f.name)} />{' '}
                  {f.name} <TypeName field={f} />
                </label>
              ))}
            </fieldset>
          </details>
        )}
        {error && (
          <p role="alert" className="invalid">
            {error}
          </p>
        )}
        {columnErrors.length > 0 && (
          <ul className="item-errors" role="alert">
            {columnErrors.map(([field, e]) => (
              <li key={field}>
                <ItemError what={`${field}:`} error={e} />
              </li>
            ))}
          </ul>
        )}
        {layout === 'statistics' && <StatsView client={client} sessionId={sessionId} table={table} />}
        {data && layout !== 'statistics' && data.records.length === 0 && (
          <p className="muted">No records here.</p>
        )}
        {data && layout === 'table' && (
          <div className={`data-split${open ? ' with-detail' : ''}`}>
            <RecordTable
              page={data}
              fields={fields}
              current={current}
              onRecord={(i) => setCurrent(i === current ? null : i)}
            />
            {open && (
              <aside className="record-detail" aria-label={`record ${open.index}`}>
                <RecordCard
                  record={open}
                  fields={chosen}
                  schemaKey={table.schema.key}
                  columnErrors={data.columnErrors}
                />
              </aside>
            )}
          </div>
        )}
        {data && layout === 'cards' && (
          <div className="cards">
            {data.records.map((record) => (
              <RecordCard
                key={record.index}
                record={record}
                fields={chosen}
                schemaKey={table.schema.key}
                columnErrors={data.columnErrors}
              />
            ))}
          </div>
        )}
      </div>
    </DataSourceContext.Provider>
  );
}
