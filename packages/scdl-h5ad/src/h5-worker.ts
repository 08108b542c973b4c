/**
 * Node-only: the worker thread that runs h5wasm for `describeH5ad` and `convertH5adToScdl`
 * (see h5-host.ts). Every h5wasm call bumps a shared counter on entry and exit, so the main
 * thread sees a call that never returns (HDF5 looping on a corrupt file) and stops the worker.
 */
import * as path from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { convertAnnData } from './convert.js';
import type { H5Lib } from './h5.js';
import { asH5adError } from './h5-failures.js';
import { type FromWorker, proxyWriter, serializeError, type ToWorker, type WorkerTask } from './h5-host.js';
import { loadH5wasmNode } from './node.js';
import { openAnnData } from './open.js';

const { heartbeat } = workerData as { heartbeat: Int32Array };
const port = parentPort!;
const post = (message: FromWorker, transfer?: ArrayBuffer[]) => port.postMessage(message, transfer);

// Tasks come one at a time; within one, the converter awaits each writer call before the
// next: one reply is pending at a time.
let pending: ((result: unknown) => void) | undefined;
port.on('message', (message: ToWorker) => {
  if (message.op === 'task') {
    runTask(message.task);
    return;
  }
  const answer = pending;
  pending = undefined;
  answer?.(message.result);
});
const call = () =>
  new Promise<unknown>((resolve) => {
    pending = resolve;
  });

/** Wraps the module's functions (HDF5 entry points) to bump the heartbeat around each call. */
function watchCalls(lib: H5Lib): void {
  const module = lib.Module as unknown as Record<string, unknown>;
  for (const name of Object.keys(module)) {
    const fn = module[name];
    if (typeof fn !== 'function' || !/^[a-z]/.test(name)) continue;
    try {
      module[name] = function (this: unknown, ...args: unknown[]) {
        Atomics.add(heartbeat, 0, 1);
        try {
          return (fn as (...a: unknown[]) => unknown).apply(this, args);
        } finally {
          Atomics.add(heartbeat, 0, 1);
        }
      };
    } catch {
      // A read-only property: that call is not watched, the others are.
    }
  }
}

let watched: Promise<H5Lib> | undefined;

async function run(task: WorkerTask): Promise<unknown> {
  watched ??= loadH5wasmNode().then((lib) => {
    watchCalls(lib);
    return lib;
  });
  const lib = await watched;
  if (task.op === 'describe') {
    const adata = openAnnData(lib, path.resolve(task.file), task.file);
    try {
      return adata.summary();
    } catch (error) {
      throw asH5adError(error, task.file);
    } finally {
      adata.close();
    }
  }
  const { files, options } = task;
  const label = files.map((f) => f.label).join(', ');
  return convertAnnData(
    files.map((f) => ({ label: f.label, open: () => openAnnData(lib, path.resolve(f.path), f.path) })),
    async (writeOptions) => {
      post({
        op: 'create',
        options: { dataDType: writeOptions.dataDType, numCols: writeOptions.numCols, nnz: writeOptions.nnz },
      });
      await call();
      return proxyWriter(post, call);
    },
    {
      ...options,
      onProgress: (event) => post({ op: 'progress', event }),
      onWarning: (message) => post({ op: 'warning', message }),
    },
  ).catch((error: unknown) => {
    throw asH5adError(error, label);
  });
}

/** After a wasm abort() the module is dead: this worker must not take another task. */
function killedTheModule(error: unknown): boolean {
  const cause = (error as { cause?: unknown })?.cause ?? error;
  return cause instanceof WebAssembly.RuntimeError || /^Aborted\(/.test(String((cause as Error)?.message));
}

function runTask(task: WorkerTask): void {
  run(task).then(
    (result) => post({ op: 'done', result }),
    (error: unknown) =>
      post({ op: 'failed', error: serializeError(error), reusable: !killedTheModule(error) }),
  );
}
