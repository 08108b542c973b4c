import type { DirectorySink, Scratch } from '@binscope/core';
import { ScdlWriter } from '@binscope/scdl';
import type { WriterFactory } from './convert.js';

/**
 * The conversion's writer: @binscope/scdl's ScdlWriter into the app's DirectorySink, wide
 * index temps into `scratch` (memory when not given). A sink is done with the bytes of a
 * write once it resolves (core's ByteSink contract), so the converter reuses its chunk buffers.
 */
export function scdlWriterFactory(sink: DirectorySink, scratch?: Scratch): WriterFactory {
  return (writeOptions) => {
    const writer = new ScdlWriter(sink, { ...writeOptions, scratch });
    return {
      appendRows: (chunk) => writer.appendRows(chunk),
      finish: (features) => writer.finish(features),
      abort: () => writer.abort(),
      reusesChunkBuffers: true,
    };
  };
}
