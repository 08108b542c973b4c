/**
 * A converter that exists only for a test: a third party's export from the records of any
 * format, bundled into one module like the toy format (e2e/toy-format.ts) and loaded into the
 * page with `?plugin=`. It writes tab-separated text: the field names, then one line per
 * record, each value as String() writes it. It reads its input in pages of 4 records, so an
 * export of a window must hand it exactly that window however it asks.
 */
import { ANY_FORMAT, type Converter, type ConverterInfo, type RecordsInput } from '@binscope/core';

const PAGE = 4;

async function* paged(input: RecordsInput, signal?: AbortSignal) {
  for (let offset = 0; ; offset += PAGE) {
    let n = 0;
    for await (const record of input.records({ offset, limit: PAGE, signal })) {
      n++;
      yield record;
    }
    if (n < PAGE) return;
  }
}

const converter: Converter = {
  async convertRecords(input, output, options) {
    if (output.kind !== 'file') throw new Error('toy export writes a file');
    const names = input.schema.fields.map((f) => f.name);
    const encoder = new TextEncoder();
    await output.sink.write(encoder.encode(`${names.join('\t')}\n`));
    let records = 0;
    for await (const record of paged(input, options.signal)) {
      const line = names.map((n) => String(record.values[n] ?? '')).join('\t');
      await output.sink.write(encoder.encode(`${line}\n`));
      records++;
    }
    return { warnings: [], details: { records } };
  },
};

/**
 * Writes 300 KiB, says so, then waits until the export is cancelled: a test cancels it at
 * a known point (no timing), and checks that nothing of it is left behind.
 */
const waiting: Converter = {
  async convertRecords(_input, output, options) {
    if (output.kind !== 'file') throw new Error('toy export writes a file');
    // More than the export gathers before it writes to the file (256 KiB): these reach it.
    await output.sink.write(new Uint8Array(300 * 1024).fill(0x2e));
    options.onProgress?.({ phase: 'waiting to be cancelled', done: 1 });
    const signal = options.signal;
    await new Promise((_, reject) => {
      if (signal?.aborted) reject(signal.reason);
      signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
    });
    return { warnings: [], details: {} };
  },
};

export const converters: ConverterInfo[] = [
  {
    specificationVersion: 2,
    id: 'records-to-toytsv',
    from: ANY_FORMAT,
    to: 'toytsv',
    title: 'Toy TSV',
    output: 'file',
    extensions: ['toytsv'],
    load: async () => converter,
  },
  {
    specificationVersion: 2,
    id: 'records-to-toywait',
    from: ANY_FORMAT,
    to: 'toywait',
    title: 'Toy wait',
    output: 'file',
    extensions: ['toywait'],
    load: async () => waiting,
  },
];
