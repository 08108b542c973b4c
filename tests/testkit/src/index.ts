export { describeError } from './errors.js';
export {
  applyMutations,
  expectFormatErrorOrSuccess,
  FUZZ_RUNS,
  type FuzzOptions,
  type FuzzStats,
  fuzzMutations,
  onlyTruncates,
  type Mutation,
  mutationArbitrary,
} from './fuzz.js';
export { type JpegOptions, jpegBytes } from './jpeg.js';
export { npyBytes } from './npy.js';
export { tempDir } from './temp.js';
export {
  type TarEntry,
  type TarFormat,
  type TarHeaderFields,
  TarWriter,
  paxRecords,
  tarBytes,
  tarHeader,
} from './tar.js';
export {
  type InvalidVector,
  invalidVectors,
  REPO_ROOT,
  type ValidVector,
  VECTORS,
  VECTORS_PRESENT,
  validVectors,
  vectorFormats,
} from './vectors.js';
export { reachBuilt } from './bundle.js';
export { runUnprivileged } from './unprivileged.js';
export {
  builtFile,
  command,
  describeWith,
  gnuTar,
  IN_CI,
  type Prerequisite,
  vectorsFolder,
} from './prerequisites.js';
export { gnuTarShard, pythonTarShard, type ToolTarEntry } from './tar-tools.js';
export { expectProgressToEnd } from './progress.js';
export { PYTHON, pythonModules, runPython } from './python.js';
export { publicApi } from './public-api.js';
export { digest, expectSameBytes } from './same.js';
export { columnarRecords, columnRuns, convertRecordsInMemory, syntheticRecords } from './records.js';
