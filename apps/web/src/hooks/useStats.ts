import { useEffect, useState } from 'react';
import type { ParserClient } from '../client';
import type { ByteStats } from '../protocol';

/** The byte counter the worker sends with every answer (of the shown file's worker, when there is one). */
export function useStats(client: ParserClient | undefined): ByteStats | null {
  const [stats, setStats] = useState<ByteStats | null>(null);
  useEffect(() => {
    setStats(client?.lastStats ?? null);
    if (!client) return;
    client.onStats = setStats;
    return () => {
      if (client.onStats === setStats) client.onStats = undefined;
    };
  }, [client]);
  return stats;
}
