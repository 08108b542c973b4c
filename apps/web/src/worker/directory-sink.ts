import type { ArchiveSink, ArchiveStream } from '@binscope/scdl';

/**
 * An SCDL archive written straight into a folder the user picked (File System Access API,
 * usable inside the worker). Each file's writable commits on close, and the caller removes
 * the archive folder when the conversion fails, so a broken archive never stays behind.
 */
export class DirectoryHandleSink implements ArchiveSink {
  constructor(readonly root: FileSystemDirectoryHandle) {}

  private async parentOf(
    path: string,
    create: boolean,
  ): Promise<{ dir: FileSystemDirectoryHandle; name: string }> {
    const parts = path.split('/').filter(Boolean);
    let dir = this.root;
    for (const part of parts.slice(0, -1)) dir = await dir.getDirectoryHandle(part, { create });
    return { dir, name: parts[parts.length - 1] };
  }

  private async handle(path: string, create: boolean): Promise<FileSystemFileHandle> {
    const { dir, name } = await this.parentOf(path, create);
    return dir.getFileHandle(name, { create });
  }

  async writeFile(path: string, bytes: Uint8Array): Promise<void> {
    const writable = await (await this.handle(path, true)).createWritable();
    await writable.write(bytes as Uint8Array<ArrayBuffer>);
    await writable.close();
  }

  async createStream(path: string): Promise<ArchiveStream> {
    const writable = await (await this.handle(path, true)).createWritable();
    return {
      write: (bytes) => writable.write(bytes as Uint8Array<ArrayBuffer>),
      close: () => writable.close(),
    };
  }

  async readBack(path: string, offset: number, length: number): Promise<Uint8Array> {
    const file = await (await this.handle(path, false)).getFile();
    return new Uint8Array(await file.slice(offset, offset + length).arrayBuffer());
  }

  async remove(path: string): Promise<void> {
    const { dir, name } = await this.parentOf(path, false);
    await dir.removeEntry(name);
  }
}
