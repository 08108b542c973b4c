import { VECTORS, VECTORS_PRESENT } from '@binscope/testkit';

export {
  type InvalidVector,
  invalidVectors,
  type ValidVector,
  VECTORS,
  VECTORS_PRESENT,
  validVectors,
  vectorFormats,
} from '@binscope/testkit';

if (!VECTORS_PRESENT)
  console.warn(`cli vector tests skipped: no vectors folder at ${VECTORS} (set BINSCOPE_VECTORS)`);
