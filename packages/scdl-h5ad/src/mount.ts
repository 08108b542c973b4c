import {
  BlobSource,
  type ByteSource,
  FormatError,
  memoryScratch,
  type ReadOptions,
  readExact,
  type Scratch,
} from '@binscope/core';
import { answersSynchronously } from '@binscope/core/binary';
import type { H5Lib } from './h5.js';
import { hasSignatureAt, signatureOffsets } from './open.js';

/** A file HDF5 can open at `path` inside wasm, until `release` unmounts it. */
export interface Mounted {
  path: string;
  release(): void;
}

/** The part of Emscripten's FS the mounts use (h5wasm exposes it as Module.FS). */
interface EmscriptenFS {
  mkdir(path: string): void;
  rmdir(path: string): void;
  mount(type: unknown, options: unknown, path: string): void;
  unmount(path: string): void;
  writeFile(path: string, data: Uint8Array): void;
  unlink(path: string): void;
  createNode(parent: FsNode | null, name: string, mode: number): FsNode;
  ErrnoError: new (errno: number) => Error;
  filesystems: Record<string, unknown>;
}

interface FsNode {
  id: number;
  mode: number;
  size: number;
  contents: unknown;
  node_ops: unknown;
  stream_ops: unknown;
  atime: number;
  mtime: number;
  ctime: number;
}

// Emscripten's modes and errno values (as its WORKERFS uses them).
const DIR_MODE = 16895;
const FILE_MODE = 33279;
const ENOENT = 44;
const EPERM = 63;
const EIO = 29;
const EINVAL = 28;

const fsOf = (lib: H5Lib) => (lib.Module as unknown as { FS: EmscriptenFS }).FS;
let mounts = 0;
const NAME = 'input.h5ad';

/** Whether this thread can read a Blob synchronously (a dedicated Web Worker). */
function hasFileReaderSync(): boolean {
  return typeof (globalThis as { FileReaderSync?: unknown }).FileReaderSync === 'function';
}

/** Fails with BadMagic (Truncated when too short) before h5wasm sees a file that is not HDF5 at all. */
export async function checkHdf5Source(
  source: ByteSource,
  name: string,
  options?: ReadOptions,
): Promise<number> {
  for (const at of signatureOffsets(source.size)) {
    if (at + 8 > source.size) break;
    const head = await readExact(source, at, 8, { signal: options?.signal, format: 'h5ad', what: name });
    if (hasSignatureAt(head)) return at;
  }
  throw new FormatError(
    source.size < 8 ? 'Truncated' : 'BadMagic',
    'not an HDF5 file (no \\x89HDF signature)',
    { file: name, offset: 0, format: 'h5ad' },
  );
}

/**
 * Makes a Blob readable by HDF5 inside wasm. In a Web Worker it is mounted with Emscripten's
 * WORKERFS, which reads only the byte ranges HDF5 asks for (FileReaderSync on Blob.slice): a
 * multi-GB file converts without being loaded. Outside a worker there are no synchronous Blob
 * reads, so the file is copied into wasm memory (limited to a few GB): run conversions in a
 * worker.
 */
export async function mountBlob(lib: H5Lib, blob: Blob): Promise<Mounted> {
  const fs = fsOf(lib);
  const dir = `/binscope-h5ad-${++mounts}`;
  const path = `${dir}/${NAME}`;
  fs.mkdir(dir);
  if (hasFileReaderSync()) {
    fs.mount(fs.filesystems.WORKERFS, { blobs: [{ name: NAME, data: blob }] }, dir);
    return {
      path,
      release: () => {
        fs.unmount(dir);
        fs.rmdir(dir);
      },
    };
  }
  fs.writeFile(path, new Uint8Array(await blob.arrayBuffer()));
  return {
    path,
    release: () => {
      fs.unlink(path);
      fs.rmdir(dir);
    },
  };
}

/**
 * A read-only file system of one file whose reads are `source.read` straight into wasm
 * memory: HDF5 pulls exactly the byte ranges it needs. `source` must answer synchronously
 * (wasm cannot wait for a promise).
 */
function sourceFs(fs: EmscriptenFS, source: ByteSource) {
  const nodeOps = {
    getattr: (node: FsNode) => ({
      dev: 1,
      ino: node.id,
      mode: node.mode,
      nlink: 1,
      uid: 0,
      gid: 0,
      rdev: 0,
      size: node.size,
      atime: new Date(node.atime),
      mtime: new Date(node.mtime),
      ctime: new Date(node.ctime),
      blksize: 4096,
      blocks: Math.ceil(node.size / 4096),
    }),
    setattr: () => {},
    lookup: () => {
      throw new fs.ErrnoError(ENOENT);
    },
    mknod: () => {
      throw new fs.ErrnoError(EPERM);
    },
    rename: () => {
      throw new fs.ErrnoError(EPERM);
    },
    unlink: () => {
      throw new fs.ErrnoError(EPERM);
    },
    rmdir: () => {
      throw new fs.ErrnoError(EPERM);
    },
    readdir: (node: FsNode) => ['.', '..', ...Object.keys(node.contents as object)],
    symlink: () => {
      throw new fs.ErrnoError(EPERM);
    },
  };
  const streamOps = {
    read(
      stream: { node: FsNode },
      buffer: Int8Array | Uint8Array,
      offset: number,
      length: number,
      position: number,
    ): number {
      const size = stream.node.size;
      if (position >= size) return 0;
      const n = Math.min(length, size - position);
      const into = new Uint8Array(buffer.buffer, buffer.byteOffset + offset, n);
      const got = source.read(position, n, { into });
      if (got instanceof Promise) throw new fs.ErrnoError(EIO);
      if (got !== into) into.set(got);
      return got.byteLength;
    },
    write: () => {
      throw new fs.ErrnoError(EPERM);
    },
    llseek(stream: { node: FsNode; position: number }, offset: number, whence: number): number {
      const position = offset + (whence === 1 ? stream.position : whence === 2 ? stream.node.size : 0);
      if (position < 0) throw new fs.ErrnoError(EINVAL);
      return position;
    },
  };
  const createNode = (parent: FsNode | null, name: string, mode: number, file?: ByteSource): FsNode => {
    const node = fs.createNode(parent, name, mode);
    node.mode = mode;
    node.node_ops = nodeOps;
    node.stream_ops = streamOps;
    node.atime = node.mtime = node.ctime = Date.now();
    node.size = file ? file.size : 4096;
    node.contents = file ?? {};
    if (parent) (parent.contents as Record<string, FsNode>)[name] = node;
    return node;
  };
  return {
    mount(): FsNode {
      const root = createNode(null, '/', DIR_MODE);
      createNode(root, NAME, FILE_MODE, source);
      return root;
    },
  };
}

/** Copies a source into scratch space (bounded memory with file scratch) in 4 MiB steps. */
async function copyToScratch(
  source: ByteSource,
  scratch: Scratch,
  options?: ReadOptions,
): Promise<ByteSource> {
  const file = scratch.file(source.name);
  const step = 4 << 20;
  const buffer = new Uint8Array(Math.min(step, Math.max(1, source.size)));
  for (let at = 0; at < source.size; at += buffer.byteLength) {
    const n = Math.min(buffer.byteLength, source.size - at);
    file.append(await readExact(source, at, n, { signal: options?.signal, into: buffer.subarray(0, n) }));
  }
  return file;
}

/**
 * Makes any byte source readable by HDF5 inside wasm: a source that answers synchronously
 * (a local file, memory, scratch) directly; a browser File through WORKERFS in a Web Worker
 * (copied into wasm memory elsewhere); anything else (HTTP, S3) copied into `scratch` first,
 * since HDF5's reads cannot wait for a promise, or refused with `copy: false` (a reader has
 * no scratch space and must not hold a whole remote file in memory). Release removes the copy.
 */
export async function mountSource(
  lib: H5Lib,
  source: ByteSource,
  options: ReadOptions & { scratch?: Scratch; copy?: boolean } = {},
): Promise<Mounted> {
  if (source instanceof BlobSource) return mountBlob(lib, source.blob);
  let readable = source;
  let own: Scratch | undefined;
  if (!answersSynchronously(source)) {
    if (options.copy === false)
      throw new FormatError(
        'UnsupportedFeature',
        'HDF5 reads a file synchronously: a .h5ad is read from a local file or a browser File, not over the network (convert it, or copy it here first)',
        { file: source.name, format: 'h5ad' },
      );
    if (!options.scratch) own = memoryScratch();
    readable = await copyToScratch(source, options.scratch ?? (own as Scratch), options);
  }
  const fs = fsOf(lib);
  const dir = `/binscope-h5ad-${++mounts}`;
  fs.mkdir(dir);
  try {
    fs.mount(sourceFs(fs, readable), {}, dir);
  } catch (error) {
    fs.rmdir(dir);
    throw error;
  }
  return {
    path: `${dir}/${NAME}`,
    release: () => {
      fs.unmount(dir);
      fs.rmdir(dir);
      if (readable !== source) (readable as { remove?(): void }).remove?.();
      own?.close();
    },
  };
}
