import {
  type ByteSource,
  type ConvertInput,
  createRegistry,
  directoryTarget,
  fileTarget,
  isBinscopeError,
  MemoryDirectory,
  MemorySource,
  memoryScratch,
  type OptionValues,
  type Scratch,
  runConverter,
} from '@binscope/core';
import { MemorySink } from '@binscope/core/binary';
import { fileScratch } from '@binscope/core/node';
import { openMldf, validateMldf } from '@binscope/mldf';
import { indexShards, taridxFormat } from '@binscope/taridx';
import { tempDir } from '@binscope/testkit';
import { afterAll, describe, expect, it } from 'vitest';
import { convertTaridxToMldf, KEY_FIELD, taridxMldfConverters, taridxToMldfConverter } from '../src/index.js';
import { makeFold } from './fold.js';

const tmp = tempDir('taridx-mldf-converter-');
afterAll(() => tmp.remove());

const { files, samples } = await makeFold();

/** A folder that counts the sources opened from it and closed. */
class CountingDirectory extends MemoryDirectory {
  opened = 0;
  closed = 0;
  override async open(name: string): Promise<ByteSource> {
    const inner = await super.open(name);
    this.opened++;
    return {
      name: inner.name,
      size: inner.size,
      read: (o, l, r) => inner.read(o, l, r),
      close: async () => {
        this.closed++;
      },
    };
  }
}

/** A scratch that counts the files it made and removed. */
function countingScratch(inner: Scratch): Scratch & { made: number; removed: number } {
  const counts = { made: 0, removed: 0 };
  return Object.assign(counts, {
    file(name: string) {
      const file = inner.file(name);
      counts.made++;
      const remove = file.remove.bind(file);
      file.remove = () => {
        counts.removed++;
        remove();
      };
      return file;
    },
    close: () => inner.close(),
  });
}

async function convert(input: ConvertInput, values: OptionValues = {}, scratch: Scratch = memoryScratch()) {
  const converter = await taridxToMldfConverter.load();
  const sink = new MemorySink();
  const report = await runConverter(
    taridxToMldfConverter,
    converter,
    input,
    { kind: 'file', sink },
    { scratch, values },
  );
  return { bytes: sink.bytes(), report };
}

describe('taridx → mldf, the declared converter', () => {
  it('is declared with today’s convert flags, and found by the registry', async () => {
    const registry = createRegistry([taridxFormat], taridxMldfConverters);
    expect(registry.converter('taridx', 'mldf')).toBe(taridxToMldfConverter);
    expect(taridxToMldfConverter.options?.map((o) => o.name)).toEqual(['fold', 'keepEncoded', 'checksum']);
  });

  it('an index beside its shards and a folder with a fold give the package API’s bytes', async () => {
    const { bytes: index } = await indexShards({ directory: new MemoryDirectory(files), fold: 'train' });
    const expected = new MemorySink();
    await convertTaridxToMldf({ directory: new MemoryDirectory(files), fold: 'train' }, expected, {
      checksum: true,
    });
    const siblings = new CountingDirectory(files);
    const scratch = countingScratch(memoryScratch());
    const fromIndex = await convert(
      fileTarget(new MemorySource(index, 'train.taridx'), siblings),
      { checksum: true },
      scratch,
    );
    expect(Buffer.from(fromIndex.bytes).equals(Buffer.from(expected.bytes()))).toBe(true);
    expect(fromIndex.report.details).toMatchObject({
      samples: samples.length,
      checksum: true,
      mldfBytes: fromIndex.bytes.byteLength,
    });
    // The reader it opened closed the shards it opened; the values' scratch file is gone.
    expect(siblings.opened).toBeGreaterThan(0);
    expect(siblings.closed).toBe(siblings.opened);
    expect(scratch).toMatchObject({ made: 1, removed: 1 });
    const fromFold = await convert(directoryTarget(new CountingDirectory(files)), {
      fold: 'train',
      checksum: true,
    });
    expect(Buffer.from(fromFold.bytes).equals(Buffer.from(expected.bytes()))).toBe(true);
    const mldf = await openMldf(new MemorySource(fromFold.bytes, 'train.mldf'), { verify: true });
    expect((await mldf.sample(0))[KEY_FIELD]).toBe(samples[0].key);
  });

  it('keepEncoded stores images as bytes; values spill to files beside the output in Node', async () => {
    const scratch = fileScratch(`${tmp.dir}/out.mldf`);
    try {
      const { bytes, report } = await convert(
        directoryTarget(new MemoryDirectory(files)),
        { fold: 'train', keepEncoded: true },
        scratch,
      );
      expect((report.details.fields as Array<{ name: string; type: string }>)[1]).toEqual({
        name: 'png',
        type: 'BYTES',
      });
      expect((await validateMldf(new MemorySource(bytes, 'x.mldf'))).errors).toEqual([]);
    } finally {
      scratch.close();
    }
  });

  it('refuses inputs it cannot convert, as usage errors', async () => {
    const { bytes: index } = await indexShards({ directory: new MemoryDirectory(files), fold: 'train' });
    const attempt = (input: ConvertInput, values: OptionValues) =>
      convert(input, values).catch((e: unknown) => e);
    expect(String(await attempt(directoryTarget(new MemoryDirectory(files)), {}))).toMatch(
      /RangeError: .*--fold NAME/,
    );
    const indexTarget = fileTarget(new MemorySource(index, 'train.taridx'), new MemoryDirectory(files));
    expect(String(await attempt(indexTarget, { fold: 'train' }))).toMatch(
      /RangeError: --fold is for a shard folder/,
    );
    const stream = { kind: 'stream' as const, name: 'stdin', chunks: (async function* () {})() };
    expect(String(await attempt(stream, {}))).toMatch(/RangeError: stdin: .*not a stream/);
    // An index without its shards: the reader's typed error naming them.
    const lonely = await attempt(fileTarget(new MemorySource(index, 'train.taridx')), {});
    expect(isBinscopeError(lonely, 'missing'), String(lonely)).toBe(true);
    expect(String(lonely)).toMatch(/train_\*\.tar/);
  });
});
