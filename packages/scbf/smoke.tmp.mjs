import { openScbfFile, csvToScbf, scbfToCsv } from './dist/node.js';
import { scbfPlugin, validateScbf, zlibName } from './dist/index.js';
import { NodeFileSource, openPath } from '@binscope/core/node';
import * as fs from 'node:fs';
console.log('zlib', zlibName);
const V = '/work/shared/vectors/scbf';
for (const c of ['basic', 'unicode_empty', 'large_100k']) {
  const r = await openScbfFile(`${V}/${c}/${c}.scbf`);
  console.log(c, r.header.totalRows, r.columns.map(c => c.name + ':' + c.type).join(','));
  const first = [];
  for await (const row of r.rows({ limit: 3 })) first.push(row);
  console.log(first);
  const rep = await validateScbf(NodeFileSource.open(`${V}/${c}/${c}.scbf`));
  console.log(JSON.stringify(rep));
  await csvToScbf(`${V}/${c}/${c}.csv`, `/tmp/scbfwork/${c}.scbf`);
  await scbfToCsv(`/tmp/scbfwork/${c}.scbf`, `/tmp/scbfwork/${c}.csv`);
  console.log('roundtrip identical', Buffer.compare(fs.readFileSync(`${V}/${c}/${c}.csv`), fs.readFileSync(`/tmp/scbfwork/${c}.csv`)) === 0);
  await scbfToCsv(`${V}/${c}/${c}.scbf`, `/tmp/scbfwork/${c}.v.csv`);
  console.log('vector→csv identical', Buffer.compare(fs.readFileSync(`${V}/${c}/${c}.csv`), fs.readFileSync(`/tmp/scbfwork/${c}.v.csv`)) === 0);
}
for (const f of ['bad_magic', 'truncated', 'corrupt_zlib']) {
  const rep = await scbfPlugin.validate(openPath(`${V}/invalid/${f}.scbf`));
  console.log(f, JSON.stringify(rep.errors));
}
