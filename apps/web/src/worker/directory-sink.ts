import type { ByteSink, DirectorySink } from '@binscope/core';

/**
 * A folder output written straight into a folder the user picked (File System Access API,
 * usable inside the worker). Each file's writable commits on close; the caller removes the
 * output folder when the conversion fails, so a broken output never stays behind.
 */
export class DirectoryHandleSink implements DirectorySink {
  constructor(readonly root: FileSystemDirectoryHandle) {}

  private async handle(path: string): Promise<FileSystemFileHandle> {
    const parts = path.split('/').filter(Boolean);
    let dir = this.root;
    for (const part of parts.slice(0, -1)) dir = await dir.getDirectoryHandle(part, { create: true });
    return dir.getFileHandle(parts[parts.length - 1], { create: true });
  }

  async write(path: string, content: Uint8Array | ((sink: ByteSink) => Promise<void>)): Promise<void> {
    const writable = await (await this.handle(path)).createWritable();
    try {
      if (content instanceof Uint8Array) {
        await writable.write(content as Uint8Array<ArrayBuffer>);
      } else {
        const sink = {
          position: 0,
          async write(bytes: Uint8Array) {
            await writable.write(bytes as Uint8Array<ArrayBuffer>);
            sink.position += bytes.byteLength;
          },
        };
        await content(sink);
      }
      await writable.close();
    } catch (error) {
      await writable.abort().catch(() => {});
      throw error;
    }
  }
}
