import type { ViewQuery, ViewResult } from '../protocol';
import type { Session } from './session';

/**
 * Format-specific data views: each answers small queries (a page of rows, one sample's
 * image, a dataset's tables) through its package's public reader API.
 */
export type ViewProvider = (session: Session, query: ViewQuery, signal: AbortSignal) => Promise<ViewResult>;

// Loaded on first use, so a session only pulls in the view code of its own format.
const providers: Record<string, () => Promise<ViewProvider>> = {
  scbf: () => import('./views/scbf').then((m) => m.scbfView),
  mldf: () => import('./views/mldf').then((m) => m.mldfView),
  udf: () => import('./views/udf').then((m) => m.udfView),
  taridx: () => import('./views/taridx').then((m) => m.taridxView),
  scdl: () => import('./views/scdl').then((m) => m.scdlView),
  h5ad: () => import('./views/h5ad').then((m) => m.h5adView),
};

export async function answerView(
  session: Session,
  query: ViewQuery,
  signal: AbortSignal,
): Promise<ViewResult> {
  const format = session.format;
  const load = format ? providers[format] : undefined;
  if (!load) throw new Error(`no data view for ${format ?? 'an unknown format'}`);
  return (await load())(session, query, signal);
}
