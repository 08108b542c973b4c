/**
 * The parsing worker: holds byte sources, readers and trees, answers the page's requests.
 * Everything slow (header parsing, validation, inflating blocks) happens here, so the page
 * stays responsive on any file size.
 */
import type { Envelope, Reply, Request, ResponseMap, WorkProgress } from '../protocol';
import { byteProfile } from './byte-profile';
import { compareSessions } from './compare';
import { convertSession } from './convert';
import { exportSession, exportViews } from './export';
import { hashRange } from './hash';
import { recordsPage, valueDetail } from './records';
import { checkPluginUrl, formatEntries, loadPlugin } from './registry';
import { searchAll, searchSource } from './search';
import { Session, serializeError } from './session';
import { tableStats } from './table-stats';

// The page's tsconfig has DOM types; the worker needs only these members of its scope.
const scope = self as unknown as {
  postMessage(message: unknown, transfer: Transferable[]): void;
  onmessage: ((event: MessageEvent<Envelope>) => void) | null;
  location: { origin: string };
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

/** One thing open at a time: opening something new releases the old readers and sources. */
async function replaceSessions(next: Session): Promise<SessionInfoOf> {
  for (const [key, old] of sessions) {
    if (key === next.id) continue;
    sessions.delete(key);
    await old.close();
  }
  sessions.set(next.id, next);
  return next.info();
}
type SessionInfoOf = ResponseMap['open'];

/** The file opened to compare with the open one: kept beside it, one at a time. */
let beside: number | undefined;

async function openBeside(next: Session): Promise<SessionInfoOf> {
  const old = beside === undefined ? undefined : sessions.get(beside);
  if (old && beside !== undefined) {
    sessions.delete(beside);
    await old.close();
  }
  beside = next.id;
  sessions.set(next.id, next);
  return next.info();
}

async function pluginFrom(request: Extract<Request, { type: 'loadPlugin' }>) {
  if (request.file) {
    const url = URL.createObjectURL(request.file);
    try {
      return await loadPlugin(url, request.file.name);
    } finally {
      URL.revokeObjectURL(url);
    }
  }
  if (!request.url) throw new Error('no plugin given');
  return loadPlugin(checkPluginUrl(request.url, scope.location.origin).href);
}

async function handle(id: number, request: Request, signal: AbortSignal): Promise<unknown> {
  // With the byte counters, so the page's "fetched N of M" follows a long pass as it goes.
  const sessionId = 'sessionId' in request ? request.sessionId : undefined;
  const progress = (event: WorkProgress) =>
    post({
      id,
      progress: event,
      stats: sessionId === undefined ? undefined : sessions.get(sessionId)?.stats(),
    });
  switch (request.type) {
    case 'formats':
      return formatEntries();
    case 'loadPlugin':
      return pluginFrom(request);
    case 'open':
      return replaceSessions(await Session.open(nextSession++, request.input, signal));
    case 'openCompare':
      return openBeside(await Session.open(nextSession++, request.input, signal));
    case 'compare':
      return compareSessions(
        session(request.sessionId),
        session(request.otherId),
        request.maxRecords,
        signal,
        progress,
      );
    case 'close': {
      const s = sessions.get(request.sessionId);
      sessions.delete(request.sessionId);
      await s?.close();
      return null;
    }
    case 'children':
      return session(request.sessionId)
        .requireTree()
        .children(request.path, request.start, request.end, signal);
    case 'nodeAt': {
      const s = session(request.sessionId);
      return s.tree ? s.tree.nodeAt(request.file, request.offset, signal) : { path: [], nodes: [] };
    }
    case 'bytes':
      return session(request.sessionId).bytes(request.file, request.offset, request.length, signal);
    case 'size':
      return (await session(request.sessionId).fileSource(request.file)).size;
    case 'search': {
      const { file, query, from, backward } = request;
      const source = await session(request.sessionId).fileSource(file);
      return searchSource(source, query, from, backward, signal, progress);
    }
    case 'searchAll': {
      const source = await session(request.sessionId).fileSource(request.file);
      return searchAll(source, request.query, request.limit, signal, progress);
    }
    case 'hash': {
      const source = await session(request.sessionId).fileSource(request.file);
      return hashRange(source, request.offset, request.length, signal, progress);
    }
    case 'validate':
      return session(request.sessionId).validate(signal, progress);
    case 'inspect':
      return session(request.sessionId).inspect(signal);
    case 'records':
      return recordsPage(session(request.sessionId), request, signal);
    case 'tables': {
      const catalogue = session(request.sessionId).catalogue;
      if (!catalogue) return { tables: [], more: false };
      return catalogue.page(request.offset, request.limit, signal);
    }
    case 'value':
      return valueDetail(session(request.sessionId), request, signal);
    case 'stats':
      return session(request.sessionId).stats();
    case 'byteProfile': {
      const source = await session(request.sessionId).fileSource(request.file);
      return byteProfile(source, request.strips, signal, progress);
    }
    case 'tableStats':
      return tableStats(session(request.sessionId), request, signal, progress);
    case 'convert':
      return convertSession(session(request.sessionId), request, signal, progress);
    case 'exports':
      return exportViews();
    case 'export':
      return exportSession(session(request.sessionId), request, signal, progress);
    case 'openConverted': {
      const converted = session(request.sessionId).converted;
      if (!converted) throw new Error('convert first: there is no converted output in memory');
      const opened = await converted.open(signal);
      return replaceSessions(await Session.load(nextSession++, opened, converted.name, false, signal));
    }
  }
}

/** Every buffer of an answer, moved to the page rather than copied (answers own their buffers). */
function transferables(result: unknown, out = new Set<ArrayBuffer>(), depth = 0): Transferable[] {
  if (ArrayBuffer.isView(result)) {
    if (result.buffer instanceof ArrayBuffer) out.add(result.buffer);
  } else if (result && typeof result === 'object' && depth < 12) {
    for (const value of Object.values(result)) transferables(value, out, depth + 1);
  }
  return [...out];
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
    const owner = (result as { sessionId?: number } | null)?.sessionId ?? sessionId;
    const stats = owner === undefined ? undefined : sessions.get(owner)?.stats();
    post({ id: message.id, ok: true, result, stats }, transferables(result));
  } catch (error) {
    const stats = sessionId === undefined ? undefined : sessions.get(sessionId)?.stats();
    post({ id: message.id, ok: false, error: serializeError(error), stats });
  } finally {
    pending.delete(message.id);
  }
};
