import { type ByteSource, FormatError, Phase, type ProblemList, readExact } from '@binscope/core';
import { Message, MessageHeader, MetadataVersion } from 'apache-arrow';

/**
 * One encapsulated IPC message, as the format frames it: the continuation marker 0xFFFFFFFF
 * (absent in streams older than Arrow 0.15), the metadata length, the flatbuffer Message, then
 * `bodyLength` bytes of buffers. Offsets are absolute; `metaLength` counts the prefix.
 */
export interface MessageBlock {
  readonly offset: number;
  readonly metaLength: number;
  readonly bodyLength: number;
  readonly type: MessageHeader;
  /** Rows of a record batch or dictionary batch. */
  readonly rows: number;
  readonly message: Message;
}

export const CONTINUATION = 0xffffffff;
/** Longest message metadata read: a flatbuffer of a schema of many thousands of fields fits. */
const MAX_METADATA = 1 << 28;

export const TYPE_NAMES: Partial<Record<MessageHeader, string>> = {
  [MessageHeader.Schema]: 'schema',
  [MessageHeader.DictionaryBatch]: 'dictionary batch',
  [MessageHeader.RecordBatch]: 'record batch',
};

function int32(bytes: Uint8Array, at: number): number {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getInt32(at, true);
}

/** The flatbuffer decoded, apache-arrow's own exceptions turned into the taxonomy's. */
function decodeMessage(bytes: Uint8Array, offset: number, problems: ProblemList): Message {
  let message: Message;
  try {
    message = Message.decode(bytes);
  } catch (error) {
    throw problems.error(
      'InvalidValue',
      `message metadata is not a valid Arrow flatbuffer (${reason(error)})`,
      {
        offset,
        phase: Phase.header,
      },
    );
  }
  if (message.version < MetadataVersion.V4)
    throw problems.error(
      'UnsupportedVersion',
      `message metadata version V${message.version + 1}: binscope reads V4 and V5 (Arrow 0.15 and later)`,
      { offset, phase: Phase.version },
    );
  return message;
}

export function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Reads the message at `offset`, every length checked against `end` (where its container
 * ends) before anything is read or allocated by it. `undefined` at the end-of-stream marker.
 */
export async function readMessage(
  source: ByteSource,
  offset: number,
  end: number,
  problems: ProblemList,
): Promise<MessageBlock | undefined> {
  const what = { format: problems.format, what: 'message length' };
  if (offset + 4 > end)
    throw problems.error('Truncated', `a message starts at ${offset} but its length runs past ${end}`, {
      offset,
      phase: Phase.bounds,
    });
  const head = await readExact(source, offset, Math.min(8, end - offset), what);
  const continued = head.length >= 4 && int32(head, 0) === -1;
  if (continued && head.length < 8)
    throw problems.error('Truncated', 'the stream ends inside a message length', {
      offset,
      phase: Phase.bounds,
    });
  const prefix = continued ? 8 : 4;
  const length = int32(head, prefix - 4);
  if (length === 0) return undefined;
  if (length < 0 || length > MAX_METADATA)
    throw problems.error('InvalidValue', `message metadata length ${length} is not a length`, {
      offset: offset + prefix - 4,
      phase: Phase.header,
    });
  if (offset + prefix + length > end)
    throw problems.error(
      'Truncated',
      `message metadata of ${length} bytes at ${offset + prefix} runs past ${end}`,
      { offset, phase: Phase.bounds },
    );
  const bytes = await readExact(source, offset + prefix, length, {
    format: problems.format,
    what: 'message metadata',
  });
  const message = decodeMessage(bytes, offset + prefix, problems);
  const bodyLength = Number(message.bodyLength);
  if (!Number.isSafeInteger(bodyLength) || bodyLength < 0 || offset + prefix + length + bodyLength > end)
    throw problems.error(
      'Truncated',
      `${TYPE_NAMES[message.headerType as MessageHeader] ?? 'message'} body of ${message.bodyLength} bytes at ${offset + prefix + length} runs past ${end}`,
      { offset, phase: Phase.bounds },
    );
  return {
    offset,
    metaLength: prefix + length,
    bodyLength,
    type: message.headerType,
    rows: rowsOf(message),
    message,
  };
}

function rowsOf(message: Message): number {
  if (message.isRecordBatch()) return Number(message.header().length);
  if (message.isDictionaryBatch()) return Number(message.header().data.length);
  return 0;
}

/**
 * The body's buffers lie inside the body, and the header declares no compression this reader
 * lacks a codec for: checked before apache-arrow slices anything, so a crafted buffer region
 * is the taxonomy's OutOfBounds, not a silent short view.
 */
export function checkBody(block: MessageBlock, problems: ProblemList): void {
  const { message } = block;
  const header = message.isRecordBatch()
    ? message.header()
    : message.isDictionaryBatch()
      ? message.header().data
      : undefined;
  if (!header) return;
  if (header.compression)
    throw problems.error('UnsupportedFeature', 'compressed record batch bodies (LZ4/ZSTD) are not read yet', {
      offset: block.offset,
      phase: Phase.header,
    });
  for (const buffer of header.buffers) {
    const start = Number(buffer.offset);
    const length = Number(buffer.length);
    if (start < 0 || length < 0 || start + length > block.bodyLength)
      throw problems.error(
        'OutOfBounds',
        `a buffer of ${length} bytes at body offset ${start} lies outside the ${block.bodyLength}-byte body`,
        {
          offset: block.offset + block.metaLength + Math.max(0, Math.min(start, block.bodyLength)),
          phase: Phase.bounds,
        },
      );
  }
}

/** A message's bytes framed for an in-memory stream: continuation, length, metadata, padding. */
export function frame(metadata: Uint8Array): Uint8Array {
  const padded = Math.ceil(metadata.byteLength / 8) * 8;
  const out = new Uint8Array(8 + padded);
  const view = new DataView(out.buffer);
  view.setUint32(0, CONTINUATION, true);
  view.setInt32(4, padded, true);
  out.set(metadata, 8);
  return out;
}

/** Throws `error` as the taxonomy's InvalidValue when apache-arrow raised something of its own. */
export function asFormatError(
  error: unknown,
  message: string,
  offset: number,
  problems: ProblemList,
): FormatError {
  if (error instanceof FormatError) return error;
  return problems.error('InvalidValue', `${message} (${reason(error)})`, { offset, phase: Phase.payload });
}
