/** @binscope/taridx-mldf: WebDataset tar shards → one MLDF file. Browser-safe. */
export {
  convertTaridxToMldf,
  KEY_FIELD,
  type TaridxToMldfOptions,
  type TaridxToMldfResult,
  type TaridxToMldfSinkOptions,
} from './convert.js';
export { type FieldPlan, memberValue, planField } from './fields.js';
export { decodeImage, type RawImage } from './image.js';
export type { ShardsInput } from './input.js';
export { recordsToMldfConverter, taridxMldfConverters, taridxToMldfConverter } from './magic.js';
export { kindOf, type MemberKind, type MemberPlace } from './member.js';
export { type NpyLayout, npyLayout } from './npy.js';
