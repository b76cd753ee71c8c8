// Banks' write leases on Neo4j, kept on the Bank node: taken after the bank's write lock (writes.ts lock), so the
// read that decides whether the lease is free sees every lease committed before it: two processes never both hold one.
import { CairnError } from '../../core/index.ts';
import type { WriteLease } from '../ports.ts';
import type { Neo4jConnection } from './connection.ts';
import { num } from './rows.ts';
import * as rec from './statements/records.ts';
import { lock } from './writes.ts';

export async function takeWriteLease(db: Neo4jConnection, lease: WriteLease, takeOver: string | null, now: string): Promise<WriteLease> {
  return db.writeTx(async (tx) => {
    try {
      await lock(tx, lease.bankId, now);
    } catch (e) {
      // A bank that does not exist needs no lease (the write itself reports it missing).
      if (e instanceof CairnError && e.code === 'not_found') return lease;
      throw e;
    }
    const [row] = await tx.run(rec.takeWriteLease(lease, takeOver, now));
    if (!row) return lease;
    return {
      bankId: lease.bankId,
      holder: String(row.holder),
      host: String(row.host),
      pid: num(row.pid),
      startedAt: String(row.startedAt),
      until: String(row.until),
    };
  });
}

export async function releaseWriteLease(db: Neo4jConnection, bankId: string, holder: string): Promise<void> {
  await db.write(rec.releaseWriteLease(bankId, holder));
}
