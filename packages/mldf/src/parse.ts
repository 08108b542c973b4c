import {
  type ByteSource,
  type ErrorCode,
  isBinscopeError,
  Phase,
  type Problem,
  type ProblemList,
  type ReadOptions,
  readExact,
} from '@binscope/core';
import { parseDescriptors } from './descriptors.js';
import { checkHeader, decodeHeader } from './header.js';
import {
  checkLayout,
  clampedLayout,
  DESCRIPTOR_SIZE,
  FIELD_DESC_PTR,
  FORMAT_ID,
  type MldfField,
  type MldfHeader,
  type MldfLayout,
} from './layout.js';

/** What the structural parse (M1–M4) found, as far as it got. */
export interface MldfStructure {
  source: ByteSource;
  /** The findings of the parse so far (warnings included), for the reader's `warnings`. */
  problems: ProblemList;
  /** The first bytes of the file: magic + header, or fewer when the file is shorter. */
  head: Uint8Array;
  /** The header as decoded, checked or not (undefined when the file is shorter than it). */
  header?: MldfHeader;
  /** The header placed the descriptor table (it may still be cut short). */
  descriptorsLocated: boolean;
  /** Descriptors whose bytes are in the file (at most num_fields): the ones in `fields` parsed. */
  descriptorCount: number;
  fields: MldfField[];
  /** The checked layout, or the header's sections clamped to the file when it did not check out. */
  layout?: MldfLayout;
  /** Header, descriptors and layout all checked out: samples can be read. */
  readable: boolean;
}

const PHASE_OF_CODE: Partial<Record<ErrorCode, number>> = {
  Misaligned: Phase.alignment,
  OutOfBounds: Phase.bounds,
  Truncated: Phase.bounds,
  CountMismatch: Phase.header,
};

/**
 * The one structural parse of an MLDF file, in the mode of `problems`: a strict read
 * (`read`) throws the first error in A2 order at the end of the stage it is found in; validate
 * and inspect record it and go on as far as the file still lets the next stage be located.
 */
export async function parseStructure(
  source: ByteSource,
  problems: ProblemList,
  options: ReadOptions = {},
): Promise<MldfStructure> {
  const head = await source.read(0, Math.min(source.size, FIELD_DESC_PTR), options);
  const out: MldfStructure = {
    source,
    problems,
    head,
    descriptorsLocated: false,
    descriptorCount: 0,
    fields: [],
    readable: false,
  };
  const header = checkHeader(head, source.size, problems);
  problems.checkpoint();
  out.header = header ?? decodeHeader(head);
  if (!header) return out;
  out.descriptorsLocated = true;

  const wanted = DESCRIPTOR_SIZE * header.numFields;
  const inFile = Math.max(0, source.size - FIELD_DESC_PTR);
  let descriptors: Uint8Array;
  try {
    descriptors = await readExact(source, FIELD_DESC_PTR, wanted, {
      format: FORMAT_ID,
      what: 'field descriptors',
      signal: options.signal,
    });
  } catch (error) {
    if (!isBinscopeError(error, 'FormatError')) throw error;
    // Not a checkpoint yet: a defect in the descriptors that are there ranks before the cut (A2).
    problems.capture(error, { phase: Phase.bounds });
    const whole = Math.floor(Math.min(wanted, inFile) / DESCRIPTOR_SIZE) * DESCRIPTOR_SIZE;
    descriptors = await source.read(FIELD_DESC_PTR, whole, options);
  }
  out.descriptorCount = Math.floor(descriptors.byteLength / DESCRIPTOR_SIZE);
  out.fields = parseDescriptors(descriptors, header, problems);
  problems.checkpoint();
  // A bad descriptor leaves the row layout unknown: nothing after the descriptors can be located.
  if (out.fields.length < header.numFields) return out;

  try {
    out.layout = checkLayout(header, out.fields, source.size, problems);
  } catch (error) {
    if (!isBinscopeError(error, 'FormatError')) throw error;
    problems.capture(error, { phase: PHASE_OF_CODE[error.code] ?? Phase.header });
    problems.checkpoint();
    out.layout = clampedLayout(header, out.fields, source.size);
    return out;
  }
  out.readable = !problems.hasErrors();
  return out;
}

/** The warnings a clean parse left (newer minor version, non-canonical layout, field flags). */
export function parseWarnings(parsed: MldfStructure): Problem[] {
  return parsed.problems.report().warnings;
}
