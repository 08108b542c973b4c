import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { S3Client } from '../s3.js';
import { abortMultipartUpload } from '../s3-multipart.js';
import { pidAlive } from './replace.js';

/**
 * Multipart uploads this machine's binscope processes have started and not yet completed or
 * aborted, one small file each. A process killed with SIGKILL cannot abort its upload, and
 * S3 keeps (and bills) the parts until someone does: the next binscope write on this machine
 * reads the journal and aborts the uploads of processes that are gone. Uploads started on
 * other machines are not touched (whether their writer lives cannot be known); a bucket
 * lifecycle rule (AbortIncompleteMultipartUpload) is the catch-all for those.
 *
 * The folder: $BINSCOPE_STATE_DIR, else $XDG_STATE_HOME/binscope/uploads, else
 * ~/.local/state/binscope/uploads.
 */
export interface JournalEntry {
  /** Which store: the client's endpoint (or AWS region) the upload went to. */
  store: string;
  /** s3://bucket/key */
  url: string;
  uploadId: string;
  pid: number;
  host: string;
  /** ISO time the upload started. */
  started: string;
}

export function journalDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.BINSCOPE_STATE_DIR) return path.join(env.BINSCOPE_STATE_DIR, 'uploads');
  const state = env.XDG_STATE_HOME || path.join(os.homedir(), '.local', 'state');
  return path.join(state, 'binscope', 'uploads');
}

/** The store an S3Client writes to, as the journal names it. */
export function storeOf(client: S3Client): string {
  return client.settings.endpoint || `aws:${client.settings.region || 'us-east-1'}`;
}

function entryFile(dir: string, store: string, uploadId: string): string {
  const id = createHash('sha256').update(`${store}\n${uploadId}`).digest('hex').slice(0, 32);
  return path.join(dir, `${id}.json`);
}

/** Records an upload as under way. A journal that cannot be written only loses the later cleanup. */
export function recordUpload(client: S3Client, url: string, uploadId: string, dir = journalDir()): void {
  const entry: JournalEntry = {
    store: storeOf(client),
    url,
    uploadId,
    pid: process.pid,
    host: os.hostname(),
    started: new Date().toISOString(),
  };
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    fs.writeFileSync(entryFile(dir, entry.store, uploadId), JSON.stringify(entry));
  } catch {
    // No state folder (a read-only home): the upload still works; only the SIGKILL cleanup is lost.
  }
}

export function forgetUpload(client: S3Client, uploadId: string, dir = journalDir()): void {
  fs.rmSync(entryFile(dir, storeOf(client), uploadId), { force: true });
}

/** Journal entries (with their file) for this store whose process on this machine is gone. */
export function staleUploads(client: S3Client, dir = journalDir()): Array<JournalEntry & { file: string }> {
  let names: string[];
  try {
    names = fs.readdirSync(dir).filter((name) => name.endsWith('.json'));
  } catch {
    return [];
  }
  const store = storeOf(client);
  const host = os.hostname();
  const out: Array<JournalEntry & { file: string }> = [];
  for (const name of names) {
    const file = path.join(dir, name);
    let entry: JournalEntry;
    try {
      entry = JSON.parse(fs.readFileSync(file, 'utf8')) as JournalEntry;
    } catch {
      continue;
    }
    if (entry.store !== store || entry.host !== host) continue;
    if (entry.pid === process.pid || pidAlive(entry.pid)) continue;
    out.push({ ...entry, file });
  }
  return out;
}

/**
 * Aborts the uploads that dead binscope processes on this machine left at this store, and
 * drops their journal entries. Returns the URLs cleaned; failures (the store unreachable,
 * the keys lacking permission) are reported and the entries kept for a later try.
 */
export async function abortStaleUploads(
  client: S3Client,
  options: { dir?: string; onWarning?: (message: string) => void; signal?: AbortSignal } = {},
): Promise<string[]> {
  const dir = options.dir ?? journalDir();
  const cleaned: string[] = [];
  for (const entry of staleUploads(client, dir)) {
    try {
      await abortMultipartUpload(client, entry.url, entry.uploadId, { signal: options.signal, retries: 1 });
      fs.rmSync(entry.file, { force: true });
      cleaned.push(entry.url);
    } catch (error) {
      options.onWarning?.(
        `${entry.url}: could not abort the multipart upload a killed binscope process (pid ${entry.pid}) left: ${(error as Error).message}`,
      );
    }
  }
  return cleaned;
}
