import { useState } from 'react';
import type { ParserClient } from '../../client';
import type { SerializedError } from '../../protocol';
import { type ByteLocation, BytesButton } from '../BytesLink';
import { type Page, Pager } from '../RecordsTable';
import { ImageCanvas } from './ImageCanvas';
import { ItemError } from './ItemError';
import { useView } from './useView';

type Value =
  | { kind: 'missing' }
  | { kind: 'scalar'; text: string }
  | { kind: 'text'; text: string; length: number }
  | { kind: 'bytes'; size: number; hex: string }
  | { kind: 'ndarray'; dtype: string; shape: number[]; items: string[]; count: number }
  | { kind: 'image'; height: number; width: number; channels: number; buffer: string }
  | { kind: 'json'; text: string; truncated: boolean }
  | { kind: 'error'; error: SerializedError };

interface Samples {
  total: number;
  fields: Array<{ name: string; type: string; ndarray: { dtype: string; shape: number[] } | null }>;
  /** `error`: the sample could not be read whole; its fields were read one by one. */
  samples: Array<{
    index: number;
    values: Record<string, Value>;
    error: SerializedError | null;
    /** Each value's bytes: its payload, or its metadata struct when it has none (or a bad one). */
    bytes: Record<string, ByteLocation>;
  }>;
}

/** MLDF samples as cards: images drawn from IMAGE_RAW pixels, NDARRAY dtype and shape, scalars, JSON. */
export function MldfView({ client, sessionId }: { client: ParserClient; sessionId: number }) {
  const [page, setPage] = useState<Page>({ offset: 0, limit: 12 });
  const { data, buffers, error } = useView<Samples>(client, sessionId, {
    op: 'samples',
    offset: page.offset,
    limit: page.limit,
  });
  return (
    <div className="data-view">
      <Pager page={page} total={data?.total} onPage={setPage} unit="samples" />
      {data && (
        <p className="muted">
          fields:{' '}
          {data.fields
            .map(
              (f) =>
                `${f.name} (${f.type}${f.ndarray ? ` ${f.ndarray.dtype} [${f.ndarray.shape.join('×')}]` : ''})`,
            )
            .join(', ')}
        </p>
      )}
      {error && (
        <p role="alert" className="invalid">
          {error}
        </p>
      )}
      <div className="cards">
        {data?.samples.map((sample) => (
          <article
            className={`card${sample.error ? ' bad' : ''}`}
            key={sample.index}
            data-testid="sample-card"
            data-bad={sample.error ? 'true' : undefined}
          >
            <h3>sample {sample.index}</h3>
            {sample.error && (
              <p role="alert">
                <ItemError what="unreadable:" error={sample.error} />
              </p>
            )}
            <dl className="kv">
              {data.fields.map((f) => (
                <FieldValue
                  key={f.name}
                  name={f.name}
                  value={sample.values[f.name]}
                  buffers={buffers}
                  sample={sample.index}
                  bytes={sample.bytes[f.name]}
                />
              ))}
            </dl>
          </article>
        ))}
      </div>
    </div>
  );
}

function FieldValue({
  name,
  value,
  buffers,
  sample,
  bytes,
}: {
  name: string;
  value: Value;
  buffers: Record<string, Uint8Array>;
  sample: number;
  bytes: ByteLocation | undefined;
}) {
  let body: React.ReactNode;
  switch (value.kind) {
    case 'missing':
      body = <span className="muted">missing</span>;
      break;
    case 'error':
      body = <ItemError what="✗" error={value.error} />;
      break;
    case 'scalar':
      body = value.text;
      break;
    case 'text':
      body = `"${value.text}"${value.length > value.text.length ? '…' : ''}`;
      break;
    case 'bytes':
      body = (
        <>
          {value.size} B <span className="muted">{value.hex}</span>
        </>
      );
      break;
    case 'ndarray':
      body = (
        <>
          <strong>
            {value.dtype} [{value.shape.join(' × ')}]
          </strong>{' '}
          <span className="muted">
            {value.items.join(', ')}
            {value.count > value.items.length ? ', …' : ''}
          </span>
        </>
      );
      break;
    case 'image': {
      const pixels = buffers[value.buffer];
      body = (
        <>
          <span className="muted">
            {value.width}×{value.height}×{value.channels}
          </span>
          <br />
          {pixels && (
            <ImageCanvas
              pixels={pixels}
              width={value.width}
              height={value.height}
              channels={value.channels}
              label={`sample ${sample} ${name}: ${value.width}×${value.height} image`}
            />
          )}
        </>
      );
      break;
    }
    case 'json':
      body = (
        <span title={value.text}>
          {value.text.length > 200 ? `${value.text.slice(0, 200)}…` : value.text}
        </span>
      );
      break;
  }
  return (
    <>
      <dt>
        {name}
        {bytes && <BytesButton location={bytes} label="bytes" what={`${name} of sample ${sample}`} />}
      </dt>
      <dd>{body}</dd>
    </>
  );
}
