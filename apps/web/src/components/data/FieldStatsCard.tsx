import type { ReactNode } from 'react';
import { type Field, fieldTypeName } from '@binscope/core';
import type { FieldStatsView, HistogramView, NumericView, TopValue } from '../../protocol';
import { HistogramChart } from './HistogramChart';

/** An integer field with this few distinct values reads as categories (labels, classes). */
const CATEGORICAL = 50;

const count = (n: number) => n.toLocaleString('en-US');
/** Short enough for a label; the exact number is in the element's data attribute. */
const short = (n: number) =>
  Math.abs(n) >= 1e15
    ? n.toPrecision(6)
    : Number.isInteger(n)
      ? count(n)
      : Number(n.toPrecision(6)).toString();

function Stat({ term, value }: { term: string; value: string }) {
  return (
    <div>
      <dt>{term}</dt>
      <dd>{value}</dd>
    </div>
  );
}

/** The histogram's bins as a table: the chart's text alternative, and the exact counts. */
function BinsTable({ name, histogram }: { name: string; histogram: HistogramView }) {
  const { edges, counts } = histogram;
  return (
    <details className="bins">
      <summary>
        {counts.length} {counts.length === 1 ? 'bin' : 'bins'}
      </summary>
      <table className="bins-table" data-testid="histogram-bins">
        <caption className="visually-hidden">
          Histogram of {name}: values from (inclusive) to (exclusive)
        </caption>
        <thead>
          <tr>
            <th scope="col">from</th>
            <th scope="col">to</th>
            <th scope="col">count</th>
          </tr>
        </thead>
        <tbody>
          {counts.map((n, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: a bin is its position.
            <tr key={i} data-testid="bin" data-lo={edges[i]} data-hi={edges[i + 1]} data-count={n}>
              <td>{short(edges[i])}</td>
              <td>{short(edges[i + 1])}</td>
              <td>{count(n)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </details>
  );
}

/** The most frequent values as a bar list (bars scaled to the most frequent one). */
function TopValues({ name, top, approximate }: { name: string; top: TopValue[]; approximate: boolean }) {
  const most = top[0]?.count ?? 1;
  return (
    <table className="top-values" data-testid="top-values">
      <caption>
        most frequent values{approximate && ' (approximate: too many distinct values to count all)'}
      </caption>
      <thead>
        <tr>
          <th scope="col">{name}</th>
          <th scope="col">count</th>
        </tr>
      </thead>
      <tbody>
        {top.map((t) => (
          <tr key={t.value} data-testid="top-value" data-value={t.value} data-count={t.count}>
            <td className="wrap">{t.value === '' ? <span className="muted">(empty)</span> : t.value}</td>
            <td className="top-bar">
              <span
                className="bar"
                style={{ width: `calc((100% - 70px) * ${Math.max(0.02, t.count / most)})` }}
              />
              <span className="n">{count(t.count)}</span>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** A derived number's min, max, mean, histogram and bins (per-record sums, column totals). */
function Derived({
  kind,
  title,
  numeric,
  extra,
  children,
}: {
  kind: string;
  title: string;
  numeric: NumericView;
  extra?: ReactNode;
  children?: ReactNode;
}) {
  return (
    <section
      className="stat-derived"
      data-testid="derived-stats"
      data-derived={kind}
      data-min={numeric.min}
      data-max={numeric.max}
      data-mean={numeric.mean}
      aria-label={title}
    >
      <h4>{title}</h4>
      <dl className="stat-numbers">
        <Stat term="min" value={short(numeric.min)} />
        <Stat term="max" value={short(numeric.max)} />
        <Stat term="mean" value={short(numeric.mean)} />
        {extra}
      </dl>
      {numeric.histogram.counts.length > 0 && (
        <>
          <HistogramChart histogram={numeric.histogram} label={title} />
          <BinsTable name={title} histogram={numeric.histogram} />
        </>
      )}
      {children}
    </section>
  );
}

/** Per-record sums and counts of a list field, then its per-column totals (from its metadata). */
function DerivedStats({ name, stats }: { name: string; stats: FieldStatsView }) {
  const { perRecord, columnTotals } = stats;
  if (!perRecord) return null;
  const most = columnTotals?.top[0]?.total || 1;
  return (
    <>
      <Derived kind="sum" title={`${name} per record: sum`} numeric={perRecord.sum} />
      <Derived
        kind="count"
        title={`${name} per record: count`}
        numeric={perRecord.count}
        extra={
          perRecord.sparsity !== undefined && (
            <div data-testid="sparsity" data-value={perRecord.sparsity}>
              <dt>sparsity (mean)</dt>
              <dd>{(perRecord.sparsity * 100).toFixed(2)}%</dd>
            </div>
          )
        }
      />
      {columnTotals && (
        <Derived
          kind="columns"
          title={`${name} per column: total (${count(columnTotals.columns)} columns)`}
          numeric={columnTotals.numeric}
          extra={
            columnTotals.outside > 0 && (
              <Stat term="outside the columns" value={count(columnTotals.outside)} />
            )
          }
        >
          <table className="top-values" data-testid="top-columns">
            <caption>columns with the largest totals</caption>
            <thead>
              <tr>
                <th scope="col">column</th>
                <th scope="col">total</th>
              </tr>
            </thead>
            <tbody>
              {columnTotals.top.map((t) => (
                <tr key={t.column} data-testid="top-column" data-column={t.column} data-total={t.total}>
                  <td>{t.column}</td>
                  <td className="top-bar">
                    <span
                      className="bar"
                      style={{ width: `calc((100% - 70px) * ${Math.max(0.02, t.total / most)})` }}
                    />
                    <span className="n">{short(t.total)}</span>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </Derived>
      )}
    </>
  );
}

/** One field's statistics: counts, then a histogram (numbers) and/or its most frequent values. */
export function FieldStatsCard({ field, stats }: { field: Field; stats: FieldStatsView }) {
  const { numeric, distinct, top } = stats;
  const categorical = stats.kind === 'text' || (!!distinct?.exact && distinct.count <= CATEGORICAL);
  // A few distinct numbers (labels, classes) read best as a bar list; the bins stay listed.
  const showTop = categorical && !!top && top.length > 0;
  const id = `stats-${field.name.replace(/[^\w-]/g, '_')}`;
  return (
    <section
      className="stat-field"
      aria-labelledby={id}
      data-testid="field-stats"
      data-field={field.name}
      data-count={stats.count}
      data-nulls={stats.nulls}
      data-present={stats.present}
      data-min={numeric?.min}
      data-max={numeric?.max}
      data-mean={numeric?.mean}
      data-distinct={distinct?.count}
    >
      <h3 id={id}>
        {field.name} <span className="muted">{fieldTypeName(field)}</span>
      </h3>
      <dl className="stat-numbers">
        <Stat term="values" value={count(stats.count)} />
        <Stat term="nulls" value={count(stats.nulls)} />
        {numeric && (
          <>
            <Stat term="min" value={short(numeric.min)} />
            <Stat term="max" value={short(numeric.max)} />
            <Stat term="mean" value={short(numeric.mean)} />
          </>
        )}
        {numeric && numeric.nonFinite > 0 && <Stat term="NaN / ±∞" value={count(numeric.nonFinite)} />}
        {distinct && (
          <Stat
            term="distinct"
            value={distinct.exact ? count(distinct.count) : `more than ${count(distinct.count)}`}
          />
        )}
      </dl>
      {numeric && numeric.histogram.counts.length > 0 && (
        <>
          {!showTop && <HistogramChart histogram={numeric.histogram} label={field.name} />}
          <BinsTable name={field.name} histogram={numeric.histogram} />
        </>
      )}
      {showTop && !(top[0]!.count === 1 && !distinct?.exact) && (
        <TopValues name={field.name} top={top} approximate={!distinct?.exact} />
      )}
      {showTop && top[0]!.count === 1 && !distinct?.exact && (
        // A list of values seen once each, picked from too many to count, would only be noise.
        <p className="muted" data-testid="no-repeats">
          No value repeats among those counted (more than {count(distinct?.count ?? 0)} distinct: too many to
          list the most frequent).
        </p>
      )}
      <DerivedStats name={field.name} stats={stats} />
    </section>
  );
}
