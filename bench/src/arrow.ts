import * as fs from 'node:fs';
import * as path from 'node:path';
import { arrowFileConverter } from '@binscope/arrow';
import { fileTarget, memoryScratch, recordsInput } from '@binscope/core';
import { NodeFileSource } from '@binscope/core/node';
import { scbfPlugin } from '@binscope/scbf';
import { writeScbfFile } from '@binscope/scbf/node';
import type { Bench } from './harness.js';
import { fileSink } from './parquet-formats.js';
import { generate } from './scbf.js';

/**
 * Arrow IPC (issue #31): the export of a 1,000,000-row SCBF file (the SCBF bench's table:
 * int32, utf8, float64, low-cardinality utf8, int32) to an Arrow IPC file through the SCBF
 * plugin's records. The floor is reading the same records through the same plugin, so the
 * ratio is what the export adds to reading its input.
 */
export default async function run(b: Bench): Promise<void> {
  const dir = b.dir('arrow');
  const rows = b.n(1_000_000, 1000);
  const scbfPath = path.join(dir, 'bench.scbf');
  const arrowPath = path.join(dir, 'bench.arrow');
  await writeScbfFile(scbfPath, generate(rows));

  /** Opens the SCBF file with its plugin, runs `work` on its records, closes it. */
  const withInput = async (work: (input: ReturnType<typeof recordsInput>) => Promise<unknown>) => {
    const source = NodeFileSource.open(scbfPath);
    try {
      const reader = await scbfPlugin.open(fileTarget(source));
      await work(recordsInput(scbfPlugin, reader, scbfPath));
    } finally {
      await source.close();
    }
  };
  const exportOnce = () =>
    withInput(async (input) => {
      const sink = fileSink(arrowPath);
      try {
        const report = await arrowFileConverter.convertRecords!(
          input,
          { kind: 'file', sink },
          { scratch: memoryScratch() },
        );
        if (report.details?.rows !== rows) throw new Error('short export');
      } finally {
        sink.close();
      }
    });
  const readOnce = () =>
    withInput(async (input) => {
      let n = 0;
      for await (const _ of input.records({})) n++;
      if (n !== rows) throw new Error('short read');
    });
  await b.compare(
    {
      format: 'arrow',
      operation: 'export SCBF → Arrow IPC file',
      bytes: fs.statSync(scbfPath).size,
      items: rows,
      runs: 5,
      warmup: 1,
      note: 'bytes: the SCBF input; floor: the same records read through the SCBF plugin',
    },
    exportOnce,
    { name: 'read the same records through the SCBF plugin', run: readOnce },
  );
}
