/**
 * The parsing worker: holds byte sources, readers and trees, answers the page's requests.
 * Everything slow (header parsing, validation, inflating blocks) happens here, so the page
 * stays responsive on any file size.
 */
import type { Envelope, Reply, Request, ResponseMap } from '../protocol';
import { Session, serializeError } from './session';
import { searchSource } from './search';
import { answerView } from './views';

// The page's tsconfig has DOM types; the worker needs only these two members of its scope.
const scope = self as unknown as {
  postMessage(message: unknown, transfer: Transferable[]): void;
  onmessage: ((event: MessageEvent<Envelope>) => void) | null;
};

const sessions = new Map<number, Session>();
const pending = new Map<number, AbortController>();
let nextSession = 1;

function post(reply: Reply, transfer: Transferable[] = []): void {
  scope.postMessage(reply, transfer);
}

function session(id: number): Session {
  const found = sessions.get(id);
  if (!found) throw new Error(`session ${id} is closed`);
  return found;
}

async function handle(
  id: number,
  request: Request,
  signal: AbortSignal,
): Promise<ResponseMap[Request['type']]> {
  switch (request.type) {
    case 'open': {
      // One thing open at a time: opening something new releases the old readers.
      for (const [key, old] of sessions) {
        sessions.delete(key);
        await old.close();
      }
      const opened = await Session.open(nextSession++, request.input, signal);
      sessions.set(opened.id, opened);
      return opened.info();
    }
    case 'close': {
      const s = sessions.get(request.sessionId);
      sessions.delete(request.sessionId);
      await s?.close();
      return null;
    }
    case 'children':
      return session(request.sessionId).children(request.path, request.start, request.end, signal);
    case 'nodeAt':
      return session(request.sessionId).nodeAt(request.file, request.offset, signal);
    case 'bytes':
      return session(request.sessionId).bytes(request.file, request.offset, request.length, signal);
    case 'size':
      return session(request.sessionId).fileSize(request.file);
    case 'search': {
      const { file, pattern, from, backward } = request;
      const source = await session(request.sessionId).fileSource(file);
      return searchSource(source, pattern, from, backward, signal, (event) => post({ id, progress: event }));
    }
    case 'validate':
      return session(request.sessionId).validate(signal, (event) => post({ id, progress: event }));
    case 'inspect':
      return session(request.sessionId).inspect(signal);
    case 'records':
      return session(request.sessionId).records(request.offset, request.limit, request.columns, signal);
    case 'view':
      return answerView(session(request.sessionId), request.query, signal);
    case 'stats':
      return session(request.sessionId).stats();
    case 'convertH5ad': {
      const { convertH5ad } = await import('./views/h5ad');
      const result = await convertH5ad(
        session(request.sessionId),
        request.options,
        request.directory,
        signal,
        (event) => post({ id, progress: event }),
      );
      return result;
    }
    case 'openConverted': {
      const source = session(request.sessionId);
      const { convertedArchive } = await import('./views/h5ad');
      const archive = convertedArchive(source);
      if (!archive) throw new Error('convert first: there is no converted archive in memory');
      const name = (source.cache.get('h5ad:name') as string | undefined) ?? 'converted.scdl';
      const opened = await Session.fromDirectory(nextSession++, archive.directory(name), signal);
      sessions.set(opened.id, opened);
      return opened.info();
    }
  }
}

function transferables(result: unknown): Transferable[] {
  if (result instanceof Uint8Array) return [result.buffer];
  const zip = (result as { zip?: Uint8Array } | null)?.zip;
  if (zip instanceof Uint8Array) return [zip.buffer];
  const buffers = (result as { buffers?: Record<string, Uint8Array> } | null)?.buffers;
  return buffers ? Object.values(buffers).map((b) => b.buffer) : [];
}

scope.onmessage = async (event: MessageEvent<Envelope>) => {
  const message = event.data;
  if (message.type === 'cancel') {
    pending.get(message.target)?.abort(new DOMException('cancelled', 'AbortError'));
    return;
  }
  const controller = new AbortController();
  pending.set(message.id, controller);
  const sessionId = 'sessionId' in message ? message.sessionId : undefined;
  try {
    const result = await handle(message.id, message, controller.signal);
    const owner = message.type === 'open' ? (result as { sessionId: number }).sessionId : sessionId;
    const stats = owner === undefined ? undefined : sessions.get(owner)?.stats();
    post({ id: message.id, ok: true, result, stats }, transferables(result));
  } catch (error) {
    const stats = sessionId === undefined ? undefined : sessions.get(sessionId)?.stats();
    post({ id: message.id, ok: false, error: serializeError(error), stats });
  } finally {
    pending.delete(message.id);
  }
};
