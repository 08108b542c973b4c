import { csvToScbf } from './dist/node.js';
const V = '/work/shared/vectors/scbf/large_100k';
let t = performance.now();
await csvToScbf(`${V}/large_100k.csv`, '/tmp/scbfwork/l.scbf');
console.log('csv→scbf', performance.now() - t);
