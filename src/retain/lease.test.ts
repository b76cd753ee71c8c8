// Proves the retain's bank write lease on the real SQLite store through two connections (as two processes would):
// a live holder is waited for, a holder whose process is gone is taken over at once (not after its lease), a long
// retain renews its lease, and the lease is given up afterwards.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { until } from '../../test/support/poll.ts';
import { THIS_PROCESS } from '../liveness.ts';
import { SqliteStore } from '../store/sqlite/store.ts';
import { BankWriteLeases } from './lease.ts';

async function withStores(fn: (a: SqliteStore, b: SqliteStore) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-lease-'));
  const a = new SqliteStore({ dataDir: dir });
  const b = new SqliteStore({ dataDir: dir });
  try {
    await fn(a, b);
  } finally {
    await a.close();
    await b.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const holderOf = (store: SqliteStore, bankId: string) =>
  (store.db.prepare('SELECT holder, lease_until AS until FROM bank_write_leases WHERE bank_id = ?').get(bankId) as
    | { holder: string; until: string }
    | undefined) ?? null;

test('a retain waits for the holder in another connection, then takes the lease, and gives it up', async () => {
  await withStores(async (a, b) => {
    const first = new BankWriteLeases(a);
    let attempts = 0;
    const second = new BankWriteLeases({
      takeWriteLease: (lease, takeOver) => {
        attempts += 1;
        return b.takeWriteLease(lease, takeOver);
      },
      releaseWriteLease: (bankId, holder) => b.releaseWriteLease(bankId, holder),
    });
    const events: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const one = first.run('bank', async () => {
      events.push('first starts');
      await gate;
      events.push('first ends');
    });
    await until(
      'the first retain to hold the lease',
      () => holderOf(a, 'bank')?.holder,
      (h) => h === first.holder,
    );
    const two = second.run('bank', async () => {
      events.push('second starts');
      assert.equal(holderOf(b, 'bank')?.holder, second.holder);
    });
    // The second polls meanwhile, refused each time: it cannot start before the first ends.
    await until(
      'the second retain to be refused three times',
      () => attempts,
      (n) => n >= 3,
    );
    assert.deepEqual(events, ['first starts']);
    release();
    await Promise.all([one, two]);
    assert.deepEqual(events, ['first starts', 'first ends', 'second starts']);
    assert.equal(holderOf(a, 'bank'), null, 'given up afterwards');
  });
});

test('a holder whose process is gone is taken over at once, not when its lease runs out', async () => {
  await withStores(async (a) => {
    // A pid that ran on this host and ended.
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    const pid = Number(gone.stdout);
    assert.ok(pid > 0);
    const until = new Date(Date.now() + 3_600_000).toISOString();
    await a.takeWriteLease({
      bankId: 'bank',
      holder: 'retain-killed',
      host: THIS_PROCESS.host,
      pid,
      startedAt: THIS_PROCESS.startedAt,
      until,
    });
    const leases = new BankWriteLeases(a);
    const started = Date.now();
    await leases.run('bank', async () => assert.equal(holderOf(a, 'bank')?.holder, leases.holder));
    assert.ok(Date.now() - started < 60_000, 'long before its hour-long lease ended');
  });
});

test('a long retain renews its lease', async () => {
  await withStores(async (a) => {
    const leases = new BankWriteLeases(a, 'retain-long', { leaseMs: 300, maxPollMs: 50 });
    await leases.run('bank', async () => {
      const first = holderOf(a, 'bank')!.until;
      await until(
        'a renewal',
        () => holderOf(a, 'bank')!.until,
        (u) => u > first,
      );
    });
  });
});
