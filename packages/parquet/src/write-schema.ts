import type { TabularField, TabularType } from '@binscope/core';
import type { ParquetWriter } from 'hyparquet-writer';

// The writer's own hyparquet types (it pins a hyparquet of its own; the reader's may be newer).
type WriterOptions = ConstructorParameters<typeof ParquetWriter>[0];
type SchemaElement = WriterOptions['schema'][number];
type KeyValue = NonNullable<WriterOptions['kvMetadata']>[number];
type ConvertedType = NonNullable<SchemaElement['converted_type']>;

/**
 * The Parquet schema of an export: each TabularType (core's one mapping of logical types to
 * columnar data) as Parquet's physical and logical types. Both the logical type and the legacy
 * converted type are written where Parquet has both, so old and new readers agree; JSON gets
 * only the logical type, because the writer would re-encode values marked with the converted one.
 */
export function writeSchema(fields: readonly TabularField[]): SchemaElement[] {
  const out: SchemaElement[] = [{ name: 'root', num_children: fields.length }];
  for (const field of fields) appendField(out, field.name, field.type, field.nullable);
  return out;
}

function repetition(nullable: boolean): 'OPTIONAL' | 'REQUIRED' {
  return nullable ? 'OPTIONAL' : 'REQUIRED';
}

const INT_CONVERTED: Record<string, ConvertedType> = {
  i8: 'INT_8',
  i16: 'INT_16',
  i32: 'INT_32',
  i64: 'INT_64',
  u8: 'UINT_8',
  u16: 'UINT_16',
  u32: 'UINT_32',
  u64: 'UINT_64',
};

/** Appends the elements of one field (a group's children follow it, depth first). */
function appendField(out: SchemaElement[], name: string, type: TabularType, nullable: boolean): void {
  const repetition_type = repetition(nullable);
  switch (type.kind) {
    case 'int':
      out.push({
        name,
        repetition_type,
        type: type.bits === 64 ? 'INT64' : 'INT32',
        // INT(bits, signed) as its converted type alone: hyparquet-writer 0.17 writes the
        // logical type's bitWidth as a thrift i32 where the spec has an i8, which Arrow's
        // reader refuses. Every reader maps INT_8 … UINT_64 to the same integer type.
        converted_type: INT_CONVERTED[`${type.signed ? 'i' : 'u'}${type.bits}`],
      });
      return;
    case 'float':
      if (type.bits === 16)
        out.push({
          name,
          repetition_type,
          type: 'FIXED_LEN_BYTE_ARRAY',
          type_length: 2,
          logical_type: { type: 'FLOAT16' },
        });
      else out.push({ name, repetition_type, type: type.bits === 32 ? 'FLOAT' : 'DOUBLE' });
      return;
    case 'bool':
      out.push({ name, repetition_type, type: 'BOOLEAN' });
      return;
    case 'string':
      out.push({
        name,
        repetition_type,
        type: 'BYTE_ARRAY',
        converted_type: 'UTF8',
        logical_type: { type: 'STRING' },
      });
      return;
    case 'json':
      out.push({ name, repetition_type, type: 'BYTE_ARRAY', logical_type: { type: 'JSON' } });
      return;
    case 'bytes':
      out.push({ name, repetition_type, type: 'BYTE_ARRAY' });
      return;
    case 'list':
      // The three-level LIST of the Parquet spec: <name> (LIST) → repeated `list` → `element`.
      out.push({
        name,
        repetition_type,
        num_children: 1,
        converted_type: 'LIST',
        logical_type: { type: 'LIST' },
      });
      out.push({ name: 'list', repetition_type: 'REPEATED', num_children: 1 });
      appendField(out, 'element', type.items.type, type.items.nullable);
      return;
    case 'struct':
      out.push({ name, repetition_type, num_children: type.fields.length });
      for (const f of type.fields) appendField(out, f.name, f.type, f.nullable);
      return;
  }
}

/**
 * Parquet has no per-field metadata, so the fields' (shape and dtype of an ndarray, a
 * description, the source format's type name) go in one key-value entry of the footer,
 * `binscope.fields`: a JSON object from a field's dotted path to its metadata. The plugin reads
 * it back into the fields, so Parquet → binscope keeps what the export knew.
 */
export const FIELDS_KEY = 'binscope.fields';

export function fieldsMetadata(fields: readonly TabularField[]): Record<string, Record<string, string>> {
  const out: Record<string, Record<string, string>> = {};
  const visit = (field: TabularField, path: string) => {
    if (Object.keys(field.metadata).length > 0) out[path] = { ...field.metadata };
    if (field.type.kind === 'struct') for (const f of field.type.fields) visit(f, `${path}.${f.name}`);
  };
  for (const field of fields) visit(field, field.name);
  return out;
}

/** The footer's key-value entries: the fields' metadata, and where the records came from. */
export function keyValueMetadata(
  fields: readonly TabularField[],
  source: { format: string; table?: string },
): KeyValue[] {
  const out: KeyValue[] = [{ key: 'binscope.format', value: source.format }];
  if (source.table !== undefined) out.push({ key: 'binscope.table', value: source.table });
  const metadata = fieldsMetadata(fields);
  if (Object.keys(metadata).length > 0) out.push({ key: FIELDS_KEY, value: JSON.stringify(metadata) });
  return out;
}
