// Banks' write leases on SQLite (migration 015): taken, renewed and given up in immediate transactions, so two
// connections (two processes) never both hold one.
import type { WriteLease } from '../ports.ts';
import type { Db } from './database.ts';
import { prepared } from './statements.ts';

interface LeaseRow {
  bank_id: string;
  holder: string;
  host: string;
  pid: number;
  started_at: string;
  lease_until: string;
}

const leaseOf = (r: LeaseRow): WriteLease => ({
  bankId: r.bank_id,
  holder: r.holder,
  host: r.host,
  pid: r.pid,
  startedAt: r.started_at,
  until: r.lease_until,
});

export function takeWriteLease(db: Db, lease: WriteLease, takeOver: string | null, now: string): WriteLease {
  return db
    .transaction(() => {
      const row = prepared(db, 'SELECT * FROM bank_write_leases WHERE bank_id = ?').get(lease.bankId) as LeaseRow | undefined;
      if (row && row.holder !== lease.holder && row.holder !== takeOver && row.lease_until >= now) return leaseOf(row);
      prepared(
        db,
        `INSERT INTO bank_write_leases (bank_id, holder, host, pid, started_at, lease_until) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT(bank_id) DO UPDATE SET holder = excluded.holder, host = excluded.host, pid = excluded.pid,
           started_at = excluded.started_at, lease_until = excluded.lease_until`,
      ).run(lease.bankId, lease.holder, lease.host, lease.pid, lease.startedAt, lease.until);
      return lease;
    })
    .immediate();
}

export function releaseWriteLease(db: Db, bankId: string, holder: string): void {
  prepared(db, 'DELETE FROM bank_write_leases WHERE bank_id = ? AND holder = ?').run(bankId, holder);
}
