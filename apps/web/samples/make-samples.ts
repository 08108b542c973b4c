import { type DirectorySink, MemoryDirectory, matchesMagic } from '@binscope/core';
import { formats } from '@binscope/formats';

/**
 * Sample files for a first look, written when the site is built by each format's own writer
 * (`capabilities.sample`, what `binscope demo` writes too; nothing binary is committed). One
 * sample per format of the list that declares the capability, in the list's order.
 */
export interface SampleEntry {
  format: string;
  title: string;
  /** The sample's folder under samples/. */
  base: string;
  /** Paths under `base`, all opened together (a file and the companions its sample wrote). */
  files: string[];
  /** Set when the sample is a folder (a folder format's archive): the files' common top folder. */
  folder?: string;
}

export interface SampleSet {
  files: Map<string, Uint8Array>;
  manifest: SampleEntry[];
}

export async function makeSamples(): Promise<SampleSet> {
  const files = new Map<string, Uint8Array>();
  const manifest: SampleEntry[] = [];
  for (const format of formats) {
    const plugin = format.load ? await format.load() : undefined;
    const sample = plugin?.capabilities?.sample;
    if (!sample) continue;
    const out = new MemoryDirectory({}, format.id);
    const shown = await sample(out as DirectorySink);
    const written = await out.list();
    // The shown file the format's own signature is in (a sample may show its companions first).
    const own = (path: string) => {
      const bytes = out.get(path);
      return !!bytes && format.magic.some((sig) => matchesMagic(bytes, sig));
    };
    const main = shown.find(own) ?? shown[0];
    if (!main || written.length === 0) continue;
    for (const path of written) files.set(`${format.id}/${path}`, out.get(path)!);
    // A shown path that is a folder (an archive) opens as that folder; a file opens with the
    // sample's other files beside it (an index with its shards), as `demo` leaves them.
    const folder = written.some((p) => p.startsWith(`${main}/`)) ? main : undefined;
    const others = folder ? 0 : written.length - 1;
    manifest.push({
      format: format.id,
      title: `${format.title}: ${main}${others ? ` and ${others} more file${others === 1 ? '' : 's'}` : ''}`,
      base: format.id,
      files: folder
        ? written.filter((p) => p.startsWith(`${folder}/`))
        : [main, ...written.filter((p) => p !== main)],
      ...(folder ? { folder } : {}),
    });
  }
  return { files, manifest };
}
