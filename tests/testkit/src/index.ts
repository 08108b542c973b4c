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
export { runUnprivileged } from './unprivileged.js';
export { builtFile, describeWith, IN_CI, type Prerequisite, vectorsFolder } from './prerequisites.js';
export { expectProgressToEnd } from './progress.js';
export { publicApi } from './public-api.js';
export { digest, expectSameBytes } from './same.js';
