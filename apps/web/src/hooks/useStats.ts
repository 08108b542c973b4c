import { useEffect, useState } from 'react';
import type { ParserClient } from '../client';
import type { ByteStats } from '../protocol';

/** The byte counter the worker sends with every answer. */
export function useStats(client: ParserClient): ByteStats | null {
  const [stats, setStats] = useState<ByteStats | null>(null);
  useEffect(() => {
    client.onStats = setStats;
  }, [client]);
  return stats;
}
