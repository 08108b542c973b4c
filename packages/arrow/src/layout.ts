import { type ByteSource, Phase, type ProblemList, readExact } from '@binscope/core';
import { MessageHeader, type Schema } from 'apache-arrow';
import { Footer } from 'apache-arrow/ipc/metadata/file';
import { ARROW_MAGIC } from './magic.js';
import { type MessageBlock, readMessage, reason } from './message.js';

/** Where a record or dictionary batch is: what a file's footer lists for each. */
export interface Block {
  readonly offset: number;
  readonly metaLength: number;
  readonly bodyLength: number;
}

/**
 * What a parse found of an IPC file or stream: the schema and where every batch is, read
 * without reading any batch's body. A broken file gives as much as was found before the break.
 */
export interface ArrowLayout {
  readonly kind: 'file' | 'stream';
  readonly source: ByteSource;
  schema?: Schema;
  /** The schema message (a stream's first; a file's after the magic, when its writer put one). */
  schemaBlock?: Block;
  readonly dictionaries: Block[];
  readonly batches: Block[];
  /** Rows of each batch, when its message was read (a stream reads them all; a file on demand). */
  readonly rows: (number | undefined)[];
  /** File: the footer flatbuffer's range. */
  footer?: Block;
  /** The end-of-stream marker, when there is one. */
  eos?: number;
  /** The parse's problems, which the reader forks to report what it finds later (a bad batch). */
  problems?: ProblemList;
}

const MAGIC_LENGTH = ARROW_MAGIC.length;
/** Magic and padding at the start; the footer length and the magic at the end. */
const HEAD = 8;
const TAIL = 4 + MAGIC_LENGTH;

function isMagic(bytes: Uint8Array): boolean {
  for (let i = 0; i < MAGIC_LENGTH; i++) if (bytes[i] !== ARROW_MAGIC.charCodeAt(i)) return false;
  return bytes.length >= MAGIC_LENGTH;
}

export function emptyLayout(kind: 'file' | 'stream', source: ByteSource): ArrowLayout {
  return { kind, source, dictionaries: [], batches: [], rows: [] };
}

/**
 * An IPC file: the magic at both ends, the footer (schema and batch blocks) before the closing
 * magic, each block inside the region between the opening magic and the footer.
 */
export async function parseFile(layout: ArrowLayout, problems: ProblemList): Promise<void> {
  const { source } = layout;
  const opts = { format: problems.format, what: 'Arrow file magic' };
  const head = await readExact(source, 0, Math.min(HEAD, source.size), opts);
  if (!isMagic(head))
    throw problems.error('BadMagic', 'not an Arrow IPC file: no ARROW1 at byte 0', {
      offset: 0,
      phase: Phase.magic,
    });
  if (source.size < HEAD + TAIL)
    throw problems.error(
      'Truncated',
      `an Arrow file needs at least ${HEAD + TAIL} bytes, this has ${source.size}`,
      {
        offset: 0,
        phase: Phase.bounds,
      },
    );
  const tail = await readExact(source, source.size - TAIL, TAIL, {
    ...opts,
    what: 'Arrow file footer length',
  });
  if (!isMagic(tail.subarray(4)))
    throw problems.error(
      'Truncated',
      'the file does not end with ARROW1: it was cut short or is still being written',
      {
        offset: source.size - MAGIC_LENGTH,
        phase: Phase.bounds,
      },
    );
  const footerLength = new DataView(tail.buffer, tail.byteOffset, 4).getInt32(0, true);
  const footerStart = source.size - TAIL - footerLength;
  if (footerLength <= 0 || footerStart < HEAD)
    throw problems.error(
      'OutOfBounds',
      `footer length ${footerLength} does not fit between the magic numbers`,
      {
        offset: source.size - TAIL,
        phase: Phase.bounds,
      },
    );
  layout.footer = { offset: footerStart, metaLength: footerLength, bodyLength: 0 };
  const bytes = await readExact(source, footerStart, footerLength, { ...opts, what: 'Arrow file footer' });
  let footer: Footer;
  try {
    footer = Footer.decode(bytes);
    layout.schema = footer.schema;
  } catch (error) {
    throw problems.error('InvalidValue', `the footer is not a valid Arrow flatbuffer (${reason(error)})`, {
      offset: footerStart,
      phase: Phase.header,
    });
  }
  const blocks = (list: Iterable<{ offset: number; metaDataLength: number; bodyLength: number }>) =>
    [...list].map((b) => ({
      offset: Number(b.offset),
      metaLength: b.metaDataLength,
      bodyLength: Number(b.bodyLength),
    }));
  layout.dictionaries.push(...blocks(footer.dictionaryBatches()));
  layout.batches.push(...blocks(footer.recordBatches()));
  layout.rows.length = layout.batches.length;
  checkBlocks(layout, footerStart, problems);
  await findSchemaMessage(layout, footerStart, problems);
}

/** Every block lies between the opening magic and the footer, 8-byte aligned (A2: alignment, then bounds). */
function checkBlocks(layout: ArrowLayout, end: number, problems: ProblemList): void {
  const all = [
    ...layout.dictionaries.map((b, i) => ({ b, what: `dictionary batch ${i}` })),
    ...layout.batches.map((b, i) => ({ b, what: `record batch ${i}` })),
  ];
  for (const { b, what } of all) {
    if (b.offset % 8 !== 0)
      problems.error('Misaligned', `${what} starts at ${b.offset}, not on an 8-byte boundary`, {
        offset: b.offset,
        phase: Phase.alignment,
      });
    const valid = [b.offset, b.metaLength, b.bodyLength].every((n) => Number.isSafeInteger(n) && n >= 0);
    if (!valid || b.offset < HEAD || b.offset + b.metaLength + b.bodyLength > end)
      problems.error(
        'OutOfBounds',
        `${what} (${b.metaLength} + ${b.bodyLength} bytes at ${b.offset}) lies outside the batches' region [${HEAD}, ${end})`,
        { offset: Math.min(Math.max(b.offset, 0), layout.source.size), phase: Phase.bounds },
      );
  }
  problems.checkpoint();
}

/**
 * The schema message a file's writer put after the magic, for the tree (apache-arrow's writer
 * leaves it out; pyarrow's puts it there). The footer's schema is the one that counts.
 */
async function findSchemaMessage(layout: ArrowLayout, end: number, problems: ProblemList): Promise<void> {
  const first = Math.min(
    end,
    ...layout.dictionaries.map((b) => b.offset),
    ...layout.batches.map((b) => b.offset),
  );
  if (first <= HEAD + 8) return;
  const quiet = problems.fork({ mode: 'validate' });
  try {
    const block = await readMessage(layout.source, HEAD, first, quiet);
    if (block?.type === MessageHeader.Schema) layout.schemaBlock = block;
  } catch {
    // Bytes there that are no schema message leave the file readable: the footer has the schema.
  }
}

/**
 * An IPC stream: a schema message, then dictionary and record batches, up to the end-of-stream
 * marker or the end of the file. Every message's metadata is read (its body is skipped).
 */
export async function parseStream(layout: ArrowLayout, problems: ProblemList): Promise<void> {
  const { source } = layout;
  const end = source.size;
  let offset = 0;
  const first = await readMessage(source, 0, end, problems);
  if (!first || first.type !== MessageHeader.Schema)
    throw problems.error('BadMagic', 'not an Arrow IPC stream: it does not start with a schema message', {
      offset: 0,
      phase: Phase.magic,
    });
  layout.schema = first.message.header() as Schema;
  layout.schemaBlock = first;
  offset = first.offset + first.metaLength + first.bodyLength;
  while (offset < end) {
    const block: MessageBlock | undefined = await readMessage(source, offset, end, problems);
    if (!block) {
      layout.eos = offset;
      break;
    }
    if (block.type === MessageHeader.RecordBatch) {
      layout.batches.push(block);
      layout.rows.push(block.rows);
    } else if (block.type === MessageHeader.DictionaryBatch) layout.dictionaries.push(block);
    else
      throw problems.error(
        'InvalidValue',
        `a ${block.type === MessageHeader.Schema ? 'second schema' : 'message of unknown type'} in the stream`,
        {
          offset,
          phase: Phase.header,
        },
      );
    offset = block.offset + block.metaLength + block.bodyLength;
  }
}
