import { VECTORS, vectorsFolder } from '@binscope/testkit';

export {
  type InvalidVector,
  invalidVectors,
  type ValidVector,
  VECTORS,
  validVectors,
  vectorFormats,
} from '@binscope/testkit';

export const VECTORS_NEEDED = vectorsFolder(VECTORS);
export const VECTORS_PRESENT = VECTORS_NEEDED.present;
