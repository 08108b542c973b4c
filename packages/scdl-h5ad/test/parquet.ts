import { parquetMetadata, parquetReadObjects } from 'hyparquet';

/** A parquet file's content: column names in schema order and each column's values (bigints as numbers when safe). */
export async function parquetContent(
  bytes: Uint8Array,
): Promise<{ columns: string[]; values: Record<string, unknown[]> }> {
  const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  const metadata = parquetMetadata(buffer);
  const columns = metadata.schema.slice(1).map((s) => s.name);
  const rows = await parquetReadObjects({ file: buffer });
  const values: Record<string, unknown[]> = {};
  for (const name of columns) values[name] = rows.map((row) => normalize(row[name]));
  return { columns, values };
}

function normalize(v: unknown): unknown {
  if (typeof v === 'bigint' && v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER))
    return Number(v);
  if (v === undefined) return null;
  return v;
}
