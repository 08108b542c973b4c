import {
  type ByteSource,
  definePlugin,
  fileTarget,
  type JsonValue,
  type Summary,
  type ValidateOptions,
  type ValidationReport,
} from '@binscope/core';
import { storedChecksums, verifyOnOpen } from './checksum.js';
import { mldfContentFields } from './content.js';
import { inspectMldf, mldfTree } from './inspect.js';
import { FORMAT_ID } from './layout.js';
import { mldfFormat } from './magic.js';
import { type MldfStructure, parseStructure, parseWarnings } from './parse.js';
import { MldfReader } from './read.js';
import { mldfLocateSample, mldfRecords } from './records.js';
import { checkMldf } from './validate.js';
import type { MldfOpenOptions } from './values.js';

const { load: _load, ...info } = mldfFormat;

/**
 * The MLDF plugin: one structural parse (M1–M4) in core's three modes, the value, allocation
 * table, checksum and payload checks of validate and inspect (M5–M7), the tree, and the
 * reader's verbs. Records are `{sample, field: value}`; the demo sample comes from the writer.
 */
export const mldfPlugin = definePlugin<MldfStructure, MldfReader, 'file'>({
  ...info,
  kind: 'file',
  parse: (input, problems, options) => parseStructure(input.source, problems, options),
  reader: async (parsed, input, options: MldfOpenOptions) => {
    const reader = MldfReader.fromStructure(input.source, parsed, parseWarnings(parsed), options);
    await verifyOnOpen(input.source, reader.header, reader.layout, options);
    return reader;
  },
  deepChecks: (parsed, _input, problems, options) => checkMldf(parsed, problems, options),
  tree: (parsed, problems) => mldfTree(parsed, problems),
  info: async (reader) => summary(reader),
  inspect: (reader) => inspectMldf(reader),
  records: mldfRecords,
  contentFields: async (reader) => mldfContentFields(reader),
  locateRecord: (reader, index, options) => mldfLocateSample(reader, index, options),
  capabilities: {
    // Loaded when asked: readers never need the sample's writer code path.
    sample: async (out, options) => (await import('./sample.js')).writeMldfSample(out, options),
  },
});

/**
 * Opens an MLDF file lazily from any byte source (memory, Blob, HTTP range, local file): reads
 * the header and field descriptors and checks the layout (M1–M4); with `verify`, recomputes
 * the checksums. Throws the first defect as a FormatError. Closing the reader leaves `source`
 * open: it is the caller's.
 */
export function openMldf(source: ByteSource, options: MldfOpenOptions = {}): Promise<MldfReader> {
  return mldfPlugin.open(fileTarget(source), options);
}

/**
 * Every M-rule, never throwing for bad input: the structural parse, then the checksums, every
 * value, the allocation table and every payload, each defect with its class and offset, the
 * first one first in A2's order.
 */
export function validateMldf(source: ByteSource, options: ValidateOptions = {}): Promise<ValidationReport> {
  return mldfPlugin.validate(fileTarget(source), options);
}

function summary(reader: MldfReader): Summary {
  const h = reader.header;
  const fields = reader.fields.map((f) => {
    const out: { [key: string]: JsonValue } = {
      name: f.name,
      type: f.type,
      type_id: f.typeId,
      metadata_size: f.metadataSize,
    };
    if (f.ndarray) out.ndarray = { dtype: f.ndarray.dtype, shape: [...f.ndarray.shape] };
    return out;
  });
  return {
    format: FORMAT_ID,
    title: mldfFormat.title,
    version: `${h.versionMajor}.${h.versionMinor}`,
    counts: { samples: reader.numSamples, fields: reader.fields.length },
    properties: [
      ['version', `${h.versionMajor}.${h.versionMinor}`],
      ['samples', reader.numSamples],
      [
        'fields',
        reader.fields
          .map((f) =>
            f.ndarray
              ? `${f.name}: NDARRAY ${f.ndarray.dtype} [${f.ndarray.shape.join(', ')}]`
              : `${f.name}: ${f.type}`,
          )
          .join(', '),
      ],
      ['page size', h.pageSize],
      ['metadata row', `${reader.rowSize} bytes`],
      ['data region', `${reader.layout.dataEnd - h.dataPtr} bytes at ${h.dataPtr}`],
      ['allocation entries', reader.layout.allocCount],
      ['file size', reader.source.size],
      ['checksums', checksumStatus(reader)],
    ],
    details: {
      header: {
        version_major: h.versionMajor,
        version_minor: h.versionMinor,
        flags: h.flags,
        num_samples: h.numSamples,
        num_fields: h.numFields,
        page_size: h.pageSize,
        field_desc_ptr: h.fieldDescPtr,
        metadata_ptr: h.metadataPtr,
        data_ptr: h.dataPtr,
        alloc_table_ptr: h.allocTablePtr,
      },
      fields,
    },
  };
}

/** What `info` says about FLAG_CHECKSUMMED (validate, or open with verify, checks the values). */
function checksumStatus(reader: MldfReader): string {
  const sums = storedChecksums(reader.header);
  if (!sums) return 'none';
  const hex = (n: number) => `0x${n.toString(16).padStart(8, '0')}`;
  return `CRC32 data ${hex(sums.data)}, metadata ${hex(sums.metadata)} (validate verifies)`;
}
