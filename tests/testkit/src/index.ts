export {
  applyMutations,
  expectFormatErrorOrSuccess,
  FUZZ_RUNS,
  fuzzMutations,
  type Mutation,
  mutationArbitrary,
} from './fuzz.js';
export { tempDir } from './temp.js';
