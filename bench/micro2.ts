import { readExact } from '@binscope/core';
import { NodeFileSource } from '@binscope/core/node';
const src = NodeFileSource.open('/tmp/scdlmicro/archive/data.npy');
const buf = new Uint8Array(1 << 20);
let x = 1;
const offs = Array.from({ length: 20000 }, () => { x = (x * 1103515245 + 12345) % 2 ** 31; return (x % ((src.size - 8192) >> 3)) << 3; });
const what = { format: 'scdl', what: 'data.npy' };
for (const mode of ['read', 'exact', 'exact-plain', 'lit', 'sig', 'read', 'exact', 'exact-plain', 'lit', 'sig']) {
  const t = performance.now();
  for (let k = 0; k < 20000; k++) {
    const into = buf.subarray((k & 127) * 8192, (k & 127) * 8192 + 3200);
    if (mode === 'read') src.read(offs[k], 3200, { into });
    else if (mode === 'exact') readExact(src, offs[k], 3200, { ...what, signal: undefined, into });
    else if (mode === 'lit') readExact(src, offs[k], 3200, { format: 'scdl', what: 'data.npy', into });
    else if (mode === 'sig') readExact(src, offs[k], 3200, { signal: undefined, into });
    else readExact(src, offs[k], 3200, { into });
  }
  console.log(mode, (performance.now() - t).toFixed(1));
}
