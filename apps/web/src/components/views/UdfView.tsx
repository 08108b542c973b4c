import { useState } from 'react';
import type { ParserClient } from '../../client';
import { formatBytes } from '../../format';
import { BytesButton, BytesCell } from '../BytesLink';
import { type Page, Pager } from '../RecordsTable';
import { useView } from './useView';

interface TableJson {
  name: string;
  prim: string;
  dims: number;
  shape: number[];
  hint: string;
  dataSize: number;
  dataOffset: number;
  elements: number;
  index: string | null;
  related: string | null;
  type: string | null;
}
interface DatasetJson {
  key: string;
  id: string;
  offset: number;
  size: number;
  children: string[];
  tables: TableJson[];
}
interface Graph {
  root: string | null;
  datasets: DatasetJson[];
  truncated: boolean;
}
type Content =
  | {
      kind: 'values';
      table: TableJson;
      rows: number;
      rowWidth: number;
      start: number;
      end: number;
      cells: string[];
    }
  | { kind: 'text'; table: TableJson; text: string | string[] }
  | { kind: 'json'; table: TableJson; text: string; truncated: boolean }
  | { kind: 'datasets'; table: TableJson; refs: string[] }
  | { kind: 'bytes'; table: TableJson; hex: string; note?: string };

/** UDF: the dataset graph from the root (DATASET tables are its edges), a dataset's tables, one table's data. */
export function UdfView({ client, sessionId }: { client: ParserClient; sessionId: number }) {
  const graph = useView<Graph>(client, sessionId, { op: 'graph' });
  const [current, setCurrent] = useState<string | null>(null);
  const [table, setTable] = useState<number | null>(null);
  const byKey = new Map(graph.data?.datasets.map((d) => [d.key, d]));
  const datasetKey = current ?? graph.data?.root ?? null;
  const dataset = datasetKey ? byKey.get(datasetKey) : undefined;
  const choose = (key: string) => {
    setCurrent(key);
    setTable(null);
  };
  if (graph.error)
    return (
      <p role="alert" className="invalid data-view">
        {graph.error}
      </p>
    );
  if (!graph.data) return <p className="muted data-view">walking the dataset graph…</p>;
  if (!graph.data.root) return <p className="data-view">This file has no datasets (its root is null).</p>;
  return (
    <div className="data-view two-col">
      <nav className="graph" aria-label="Dataset graph" data-testid="udf-graph">
        <h3>
          Datasets ({graph.data.datasets.length}
          {graph.data.truncated ? '+' : ''})
        </h3>
        <GraphNode keyName={graph.data.root} byKey={byKey} current={datasetKey} onChoose={choose} path={[]} />
      </nav>
      <section aria-label="Dataset tables">
        {dataset && (
          <>
            <h3>
              dataset “{dataset.id}”{' '}
              <span className="muted">
                at byte {dataset.offset}, {formatBytes(dataset.size)}
              </span>
            </h3>
            <div className="table-wrap">
              <table className="records" data-testid="udf-tables">
                <thead>
                  <tr>
                    <th scope="col">table</th>
                    <th scope="col">type</th>
                    <th scope="col">shape</th>
                    <th scope="col">hint</th>
                    <th scope="col">bytes</th>
                    <th scope="col">index / related / type name</th>
                  </tr>
                </thead>
                <tbody>
                  {dataset.tables.map((t, i) => (
                    <tr key={`${t.name}-${t.dataOffset}`} className={i === table ? 'current' : ''}>
                      <td>
                        <button type="button" onClick={() => setTable(i)} aria-pressed={i === table}>
                          {t.name || '(unnamed)'}
                        </button>
                      </td>
                      <td>{t.prim}</td>
                      <td>{t.dims === 0 ? 'scalar' : t.shape.join(' × ')}</td>
                      <td>{t.hint}</td>
                      <td>{t.dataSize}</td>
                      <td>{[t.index, t.related, t.type].map((n) => n ?? '–').join(' / ')}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            {table !== null && (
              <TableContent
                key={`${dataset.key}/${table}`}
                client={client}
                sessionId={sessionId}
                dataset={dataset.key}
                table={table}
                onDataset={choose}
              />
            )}
          </>
        )}
      </section>
    </div>
  );
}

function GraphNode({
  keyName,
  byKey,
  current,
  onChoose,
  path,
}: {
  keyName: string;
  byKey: Map<string, DatasetJson>;
  current: string | null;
  onChoose(key: string): void;
  path: string[];
}) {
  const d = byKey.get(keyName);
  const cycle = path.includes(keyName);
  return (
    <ul>
      <li>
        <button
          type="button"
          className={keyName === current ? 'current' : ''}
          onClick={() => onChoose(keyName)}
          aria-current={keyName === current}
        >
          {d ? `${d.id || '(no id)'} · ${d.tables.length} tables` : keyName}
        </button>
        {cycle && <span className="muted"> ↺ (cycle)</span>}
        {!cycle &&
          // One dataset may be referenced twice: the reference's place is its identity.
          d?.children
            .map((child, i) => ({ child, id: `${child}#${i}` }))
            .map(({ child, id }) => (
              <GraphNode
                key={id}
                keyName={child}
                byKey={byKey}
                current={current}
                onChoose={onChoose}
                path={[...path, keyName]}
              />
            ))}
      </li>
    </ul>
  );
}

function TableContent({
  client,
  sessionId,
  dataset,
  table,
  onDataset,
}: {
  client: ParserClient;
  sessionId: number;
  dataset: string;
  table: number;
  onDataset(key: string): void;
}) {
  const [page, setPage] = useState<Page>({ offset: 0, limit: 50 });
  const { data, error } = useView<Content>(client, sessionId, {
    op: 'table',
    dataset,
    table,
    offset: page.offset,
    limit: page.limit,
  });
  if (error)
    return (
      <p role="alert" className="invalid">
        {error}
      </p>
    );
  if (!data) return <p className="muted">reading…</p>;
  return (
    <section
      className="table-content"
      data-testid="udf-table-content"
      aria-label={`table ${data.table.name}`}
    >
      <h4>
        {data.table.name}{' '}
        <span className="muted">
          {data.table.prim}, {data.table.hint}
        </span>
        <BytesButton location={{ offset: data.table.dataOffset, length: data.table.dataSize }} />
      </h4>
      {data.kind === 'values' && (
        <>
          <Pager page={page} total={data.rows} onPage={setPage} unit="rows" />
          <div className="table-wrap">
            <table className="records">
              <tbody>
                {Array.from({ length: data.end - data.start }, (_, r) => (
                  // biome-ignore lint/suspicious/noArrayIndexKey: the key is the row number in the table.
                  <tr key={data.start + r}>
                    <th scope="row">{data.start + r}</th>
                    {data.cells.slice(r * data.rowWidth, (r + 1) * data.rowWidth).map((c, k) => (
                      <BytesCell
                        // biome-ignore lint/suspicious/noArrayIndexKey: cells of one row, in order.
                        key={k}
                        location={elementBytes(data.table, (data.start + r) * data.rowWidth + k)}
                      >
                        {c}
                      </BytesCell>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
      {data.kind === 'text' && (
        <pre className="payload">
          {Array.isArray(data.text) ? data.text.map((t) => JSON.stringify(t)).join('\n') : data.text}
        </pre>
      )}
      {data.kind === 'json' && (
        <pre className="payload">
          {data.text}
          {data.truncated ? '\n…' : ''}
        </pre>
      )}
      {data.kind === 'bytes' && (
        <pre className="payload">
          {data.note ? `${data.note}\n` : ''}
          {data.hex}
        </pre>
      )}
      {data.kind === 'datasets' && (
        <ul>
          {data.refs.map((ref, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: references in table order.
            <li key={i}>
              <button type="button" onClick={() => onDataset(ref)}>
                dataset at {ref.replace(':', ', size ')}
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** Element `i` of a numeric table: its elements are packed, each dataSize / elements bytes. */
function elementBytes(table: TableJson, i: number): { offset: number; length: number } | undefined {
  if (!(table.elements > 0)) return undefined;
  const size = table.dataSize / table.elements;
  if (!Number.isInteger(size) || size <= 0) return undefined;
  return { offset: table.dataOffset + i * size, length: size };
}
