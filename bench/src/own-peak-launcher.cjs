'use strict';
// Preloaded (node --require) by own-peak.ts into the command it measures. On the main thread's
// 'exit' it writes this process's VmHWM (kB) to the file named by BINSCOPE_OWN_PEAK_FILE.
// VmHWM is the high-water mark of the address space exec() created, so it is this process's own
// peak; process.resourceUsage().maxRSS is not: Linux keeps ru_maxrss across execve, so a child
// forked from a big process reports its parent's peak.
const fs = require('node:fs');
const { isMainThread } = require('node:worker_threads');

const file = process.env.BINSCOPE_OWN_PEAK_FILE;
if (file && isMainThread) {
  // Not handed on to the command's own workers or children: only this process writes the file.
  delete process.env.BINSCOPE_OWN_PEAK_FILE;
  process.on('exit', () => {
    const kb = /^VmHWM:\s*(\d+) kB$/m.exec(fs.readFileSync('/proc/self/status', 'utf8'))?.[1];
    if (kb !== undefined) fs.writeFileSync(file, kb);
  });
}
