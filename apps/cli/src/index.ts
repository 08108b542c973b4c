/** The `binscope` command, callable from code: `run(["info", "x.scbf", "--json"])` resolves to the exit code. */
export { createProgram, main, type RunOptions, run } from './cli.js';
export { EXIT, type ExitCode } from './errors.js';
export type { CliStreams } from './io.js';
