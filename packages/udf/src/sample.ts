import type { DirectorySink } from '@binscope/core';
import { UdfBuilder } from './write.js';

/** A small scene: a root dataset with text, JSON, numbers and two child meshes. */
export function sceneBuilder(): UdfBuilder {
  const builder = new UdfBuilder({ id: 'DEMO' });
  const quad = builder
    .dataset({ id: 'MESH' })
    .text('name', 'quad')
    .table('vertices', { prim: 'f32', data: [0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0], shape: [4, 3] })
    .table('triangles', { prim: 'u16', data: [0, 1, 2, 0, 2, 3], shape: [2, 3] });
  const tri = builder
    .dataset({ id: 'MESH' })
    .text('name', 'triangle')
    .table('vertices', { prim: 'f32', data: [0, 0, 0, 1, 0, 0, 0, 1, 0], shape: [3, 3] })
    .table('triangles', { prim: 'u16', data: [0, 1, 2], shape: [1, 3] });
  const root = builder
    .dataset({ id: 'SCNE' })
    .text('title', 'binscope demo scene')
    .json('meta', { author: 'binscope demo', units: 'm', tags: ['sample', 'mesh'] })
    .datasets('meshes', [quad, tri])
    .table('frame_times', { prim: 'f64', data: [0, 0.04, 0.08, 0.12] })
    .table('frame_ids', { prim: 'u64', data: [1n, 2n, 3n, 18446744073709551615n] });
  builder.setRoot(root);
  return builder;
}

/** capabilities.sample: `scene.udf`, written by the format's own writer (what `binscope demo` shows). */
export async function writeUdfSample(out: DirectorySink): Promise<string[]> {
  const builder = sceneBuilder();
  await out.write('scene.udf', (sink) => builder.write(sink));
  return ['scene.udf'];
}
