import { useEffect, useState } from 'react';
import type { OpenInput } from '../protocol';

/** What the build writes to samples/index.json (see samples/make-samples.ts). */
interface Sample {
  format: string;
  title: string;
  /** The sample's folder under samples/; `files` and `folder` are paths inside it. */
  base: string;
  files: string[];
  folder?: string;
}

const base = () => new URL('samples/', document.baseURI);

/**
 * Sample files for a first look. A single file opens by URL, so it is read with range
 * requests and its link can be shared; a folder, or a file with its companions (an index with
 * its shards), is fetched whole (they are small) and opened as picked files.
 */
export function SampleList({ onOpen }: { onOpen(input: OpenInput): void }) {
  const [samples, setSamples] = useState<Sample[]>([]);
  const [failure, setFailure] = useState<string | null>(null);
  useEffect(() => {
    const controller = new AbortController();
    fetch(new URL('index.json', base()), { signal: controller.signal })
      .then((r) => (r.ok ? r.json() : []))
      .then((list: Sample[]) => setSamples(Array.isArray(list) ? list : []))
      .catch(() => {});
    return () => controller.abort();
  }, []);
  if (samples.length === 0) return null;

  const open = async (sample: Sample) => {
    setFailure(null);
    if (sample.files.length === 1 && !sample.folder) {
      onOpen({ kind: 'url', url: new URL(`${sample.base}/${sample.files[0]}`, base()).href });
      return;
    }
    try {
      const files = await Promise.all(
        sample.files.map(async (path) => {
          const response = await fetch(new URL(`${sample.base}/${path}`, base()));
          if (!response.ok) throw new Error(`${path}: HTTP ${response.status}`);
          const name = path.split('/').pop() ?? path;
          return { path, file: new File([await response.blob()], name) };
        }),
      );
      onOpen({ kind: 'files', files, folder: sample.folder });
    } catch (e) {
      setFailure(`cannot load the sample: ${(e as Error).message}`);
    }
  };

  return (
    <section className="samples" aria-labelledby="samples-h" data-testid="samples">
      <h2 id="samples-h">Or try a sample</h2>
      <ul>
        {samples.map((sample) => (
          <li key={sample.title}>
            <button type="button" onClick={() => open(sample)} data-format={sample.format}>
              {sample.title}
            </button>
          </li>
        ))}
      </ul>
      {failure && (
        <p role="alert" className="invalid">
          {failure}
        </p>
      )}
    </section>
  );
}
