import type { InputFile, OpenInput } from './protocol';

/** Files from a file input: a folder picker's files carry their relative paths. */
export function inputFromFileList(list: FileList | File[], asFolder: boolean): OpenInput | undefined {
  const files: InputFile[] = Array.from(list, (file) => ({
    path: file.webkitRelativePath || file.name,
    file,
  }));
  if (files.length === 0) return undefined;
  const top = files[0].path.includes('/') ? files[0].path.split('/')[0] : undefined;
  return { kind: 'files', files, folder: asFolder ? top : undefined };
}

/**
 * Files from a drop. Folders are walked through the entries API (the only way a drop
 * exposes a folder's contents); reading an entry's File gives a lazy Blob, no bytes yet.
 */
export async function inputFromDrop(data: DataTransfer): Promise<OpenInput | undefined> {
  const entries = Array.from(data.items)
    .filter((item) => item.kind === 'file')
    .map((item) => item.webkitGetAsEntry?.())
    .filter((entry): entry is FileSystemEntry => !!entry);
  if (entries.length === 0) return inputFromFileList(data.files, false);
  const files: InputFile[] = [];
  for (const entry of entries) await collect(entry, '', files);
  if (files.length === 0) return undefined;
  const folder = entries.length === 1 && entries[0].isDirectory ? entries[0].name : undefined;
  return { kind: 'files', files, folder };
}

async function collect(entry: FileSystemEntry, prefix: string, out: InputFile[]): Promise<void> {
  const path = prefix ? `${prefix}/${entry.name}` : entry.name;
  if (entry.isFile) {
    const file = await new Promise<File>((resolve, reject) =>
      (entry as FileSystemFileEntry).file(resolve, reject),
    );
    out.push({ path, file });
    return;
  }
  const reader = (entry as FileSystemDirectoryEntry).createReader();
  // readEntries hands out a folder in batches (100 in Chromium) until it returns none.
  for (;;) {
    const batch = await new Promise<FileSystemEntry[]>((resolve, reject) =>
      reader.readEntries(resolve, reject),
    );
    if (batch.length === 0) break;
    for (const child of batch) await collect(child, path, out);
  }
}
