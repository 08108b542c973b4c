import { useEffect, useMemo, useState } from 'react';
import type { ParserClient } from '../../client';
import { formatBytes } from '../../format';
import { type ByteLocation, BytesCell } from '../BytesLink';
import { type Page, Pager } from '../RecordsTable';
import { useView } from './useView';

interface Member {
  row: number;
  ext: string;
  fid: number;
  offset: number;
  size: number;
}
interface Samples {
  total: number;
  shards: boolean;
  samples: Array<{
    index: number;
    key: string | null;
    keyError: string | null;
    keyhash: string;
    crashid: number;
    rowsAt: ByteLocation | null;
    members: Member[];
  }>;
}
interface Payload {
  ext: string;
  size: number;
  truncated: boolean;
  head: string | null;
  path?: string | null;
}

const IMAGE_TYPES: Record<string, string> = {
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  png: 'image/png',
  gif: 'image/gif',
  webp: 'image/webp',
  bmp: 'image/bmp',
  avif: 'image/avif',
  svg: 'image/svg+xml',
};
const TEXT_EXTENSIONS = new Set([
  'json',
  'txt',
  'cls',
  'cls2',
  'csv',
  'tsv',
  'xml',
  'html',
  'md',
  'yaml',
  'yml',
  'caption',
  'text',
  'id',
  'idx',
]);

/** TARIDX: samples of the index (members, shards, offsets); with the shards dropped too, each member's payload. */
export function TaridxView({ client, sessionId }: { client: ParserClient; sessionId: number }) {
  const [page, setPage] = useState<Page>({ offset: 0, limit: 50 });
  const [chosen, setChosen] = useState<{ sample: number; member: number } | null>(null);
  const { data, error } = useView<Samples>(client, sessionId, {
    op: 'samples',
    offset: page.offset,
    limit: page.limit,
  });
  return (
    <div className="data-view">
      <Pager page={page} total={data?.total} onPage={setPage} unit="samples" />
      {data && !data.shards && (
        <p className="muted" data-testid="no-shards">
          Only the index is open. Drop it together with its <code>.tar</code> shards (or pick their folder) to
          see keys and payloads.
        </p>
      )}
      {error && (
        <p role="alert" className="invalid">
          {error}
        </p>
      )}
      <div className="two-col wide-left">
        <div className="table-wrap">
          <table className="records" data-testid="taridx-samples">
            <thead>
              <tr>
                <th scope="col">#</th>
                <th scope="col">key</th>
                <th scope="col">members (shard @ offset, size)</th>
              </tr>
            </thead>
            <tbody>
              {data?.samples.map((s) => (
                <tr key={s.index}>
                  <BytesCell location={s.rowsAt ?? undefined} note="its rows in the index">
                    {s.index}
                  </BytesCell>
                  <td
                    className="key"
                    title={`xxh64 ${s.keyhash}${s.crashid ? `, crash id ${s.crashid}` : ''}`}
                  >
                    {s.key ?? (
                      <span className="muted">{s.keyError ? `⚠ ${s.keyError}` : `#${s.keyhash}`}</span>
                    )}
                  </td>
                  <td className="members">
                    {s.members.map((m, k) => (
                      <button
                        type="button"
                        key={m.row}
                        className={chosen?.sample === s.index && chosen.member === k ? 'current' : ''}
                        disabled={!data.shards}
                        onClick={() => setChosen({ sample: s.index, member: k })}
                        title={`shard ${m.fid}, header at ${m.offset}, ${m.size} bytes`}
                        data-testid="member"
                      >
                        .{m.ext || '(none)'} <span className="muted">{formatBytes(m.size)}</span>
                      </button>
                    ))}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <section aria-label="Member payload" aria-live="polite">
          {chosen ? (
            <MemberPreview
              key={`${chosen.sample}/${chosen.member}`}
              client={client}
              sessionId={sessionId}
              {...chosen}
            />
          ) : (
            <p className="muted">Choose a member to see its payload.</p>
          )}
        </section>
      </div>
    </div>
  );
}

function MemberPreview({
  client,
  sessionId,
  sample,
  member,
}: {
  client: ParserClient;
  sessionId: number;
  sample: number;
  member: number;
}) {
  const { data, buffers, error } = useView<Payload>(client, sessionId, { op: 'member', sample, member });
  const payload = buffers.payload;
  const imageType = data ? IMAGE_TYPES[data.ext.split('.').pop() ?? ''] : undefined;
  const url = useMemo(
    () =>
      payload && imageType ? URL.createObjectURL(new Blob([payload as BlobPart], { type: imageType })) : null,
    [payload, imageType],
  );
  useEffect(() => () => void (url && URL.revokeObjectURL(url)), [url]);
  const [broken, setBroken] = useState(false);
  if (error)
    return (
      <p role="alert" className="invalid">
        {error}
      </p>
    );
  if (!data) return <p className="muted">reading from the shard…</p>;
  const ext = data.ext.split('.').pop() ?? '';
  return (
    <div data-testid="member-preview">
      <h3>
        sample {sample}, .{data.ext || '(no extension)'}{' '}
        <span className="muted">{formatBytes(data.size)}</span>
      </h3>
      {data.truncated && <p className="muted">Too large to preview here ({formatBytes(data.size)}).</p>}
      {url && !broken && (
        <img
          src={url}
          alt={`sample ${sample} .${data.ext}`}
          onError={() => setBroken(true)}
          data-testid="member-image"
        />
      )}
      {url && broken && <p className="muted">The payload does not decode as {imageType}.</p>}
      {payload && !imageType && (TEXT_EXTENSIONS.has(ext) || looksLikeText(payload)) && (
        <pre className="payload">{new TextDecoder().decode(payload.subarray(0, 16384))}</pre>
      )}
      {payload && (!imageType || broken) && !(TEXT_EXTENSIONS.has(ext) || looksLikeText(payload)) && (
        <pre className="payload">
          {data.head}
          {payload.byteLength > 16 ? ' …' : ''}
        </pre>
      )}
    </div>
  );
}

function looksLikeText(bytes: Uint8Array): boolean {
  const n = Math.min(bytes.byteLength, 512);
  for (let i = 0; i < n; i++) {
    const b = bytes[i];
    if (b < 0x09 || (b > 0x0d && b < 0x20)) return false;
  }
  return true;
}
