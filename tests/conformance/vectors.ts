/** The vector layout, shared with the CLI tests through @binscope/testkit. */
export {
  type InvalidVector as InvalidCase,
  invalidVectors as invalidCases,
  type ValidVector as ValidCase,
  VECTORS,
  VECTORS_PRESENT,
  validVectors as validCases,
  vectorFormats as formats,
} from '@binscope/testkit';
