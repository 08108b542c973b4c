import type { ParserClient } from '../client';
import type { SessionInfo } from '../protocol';
import { H5adView } from './views/H5adView';
import { RecordsView } from './RecordsTable';
import { MldfView } from './views/MldfView';
import { ScbfView } from './views/ScbfView';
import { ScdlView } from './views/ScdlView';
import { TaridxView } from './views/TaridxView';
import { UdfView } from './views/UdfView';

/** The data view that fits the format, or the plugins' generic records. */
export function DataPanel({
  client,
  session,
  onOpen,
}: {
  client: ParserClient;
  session: SessionInfo;
  onOpen(info: SessionInfo): void;
}) {
  const props = { client, sessionId: session.sessionId };
  switch (session.view) {
    case 'none':
      return <p className="muted data-view">No data to show for this file.</p>;
    case 'scbf':
      return <ScbfView {...props} />;
    case 'mldf':
      return <MldfView {...props} />;
    case 'scdl':
      return <ScdlView {...props} />;
    case 'h5ad':
      return <H5adView client={client} session={session} onOpen={onOpen} />;
    case 'taridx':
      return <TaridxView {...props} />;
    case 'udf':
      return <UdfView {...props} />;
    default:
      return <RecordsView {...props} />;
  }
}
