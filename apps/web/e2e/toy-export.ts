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
];
