// Background checkpoints: a store taking real write volume stops checkpointing in its commits, and a reader thread
// copies the log into the database file instead; a small one is left to SQLite.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { BackgroundCheckpoints } from './checkpoints.ts';
import { openDatabase, type Db } from './database.ts';
import { SqliteReaders } from './readers.ts';

const dir = mkdtempSync(join(tmpdir(), 'cairn-checkpoints-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function database(name: string): { db: Db; file: string } {
  const file = join(dir, `${name}.db`);
  const db = openDatabase(file);
  db.exec('CREATE TABLE filler (text TEXT)');
  return { db, file };
}

/** Rows of 4 KB in their own commits: about `kb` kilobytes of log. */
function write(db: Db, kb: number): void {
  const insert = db.prepare('INSERT INTO filler (text) VALUES (?)');
  for (let i = 0; i < kb / 4; i++) insert.run('x'.repeat(4000));
}

/** Counts the checkpoints the main connection runs itself (its wal_checkpoint pragmas) until restored. */
function checkpointsHere(db: Db): { count: number; restore(): void } {
  const pragma = db.pragma.bind(db);
  const here = { count: 0, restore: () => void (db.pragma = pragma) };
  db.pragma = ((source: string, options?: { simple?: boolean }) => {
    if (source.startsWith('wal_checkpoint')) here.count++;
    return pragma(source, options);
  }) as typeof db.pragma;
  return here;
}

const autocheckpoint = (db: Db): number => db.pragma('wal_autocheckpoint', { simple: true }) as number;

test('past the threshold, the main connection stops checkpointing and a reader thread copies the log', async () => {
  const { db, file } = database('offload');
  const readers = new SqliteReaders(file, 1);
  // The threshold lies above what creating the schema logged.
  const offloadBytes = statSync(`${file}-wal`).size + (256 << 10);
  const checkpoints = new BackgroundCheckpoints(db, `${file}-wal`, readers, { everyMs: 60_000, offloadBytes });
  try {
    write(db, 64);
    assert.equal(await checkpoints.tick(), null, 'a small log is left to SQLite');
    assert.equal(checkpoints.offloading, false);
    assert.equal(autocheckpoint(db), 1000);

    write(db, 512);
    const before = statSync(file).size;
    await checkpoints.tick();
    assert.equal(checkpoints.offloading, true);
    assert.equal(autocheckpoint(db), 0, 'commits no longer checkpoint');
    assert.ok(statSync(file).size > before + (256 << 10), 'the reader thread copied the pages into the database file');

    const held = statSync(file).size;
    write(db, 5 << 10); // past SQLite's own threshold (1000 pages): its commits would have copied them
    assert.equal(statSync(file).size, held, 'no commit checkpointed');
    await checkpoints.tick();
    assert.ok(statSync(file).size > held + (4 << 20), 'the next tick copied the new pages');
    assert.equal(await checkpoints.tick(), null, 'nothing written since: no checkpoint');

    await checkpoints.stop();
    assert.equal(autocheckpoint(db), 1000, 'SQLite checkpoints again once stopped');
    assert.equal(db.prepare('SELECT count(*) FROM filler').pluck().get(), 16 + 128 + 1280, 'every row kept');
  } finally {
    await readers.close();
    db.close();
  }
});

test('without a reader thread the main connection checkpoints itself', async () => {
  const { db, file } = database('fallback');
  const checkpoints = new BackgroundCheckpoints(
    db,
    `${file}-wal`,
    { checkpoint: () => Promise.reject(new Error('no threads here')) },
    { everyMs: 60_000, offloadBytes: statSync(`${file}-wal`).size + (128 << 10) },
  );
  try {
    write(db, 512);
    const before = statSync(file).size;
    await checkpoints.tick();
    assert.ok(statSync(file).size > before + (256 << 10));
    await checkpoints.stop();
  } finally {
    db.close();
  }
});

test('the log starts over once the thread reports it long: it stays bounded under constant writes', async () => {
  const { db, file } = database('bounded');
  const readers = new SqliteReaders(file, 1);
  const offloadBytes = statSync(`${file}-wal`).size + (64 << 10);
  const checkpoints = new BackgroundCheckpoints(db, `${file}-wal`, readers, { everyMs: 60_000, offloadBytes, restartFrames: 200 });
  try {
    write(db, 400);
    for (let round = 0; round < 12; round++) {
      // The thread checkpoints while this thread writes on (about 100 frames a round: 4.8 MB in all).
      const ticked = checkpoints.tick();
      write(db, 400);
      await ticked;
    }
    assert.equal(checkpoints.offloading, true);
    const wal = statSync(`${file}-wal`).size;
    // Holding every write it grows by more than 10 MB (frame headers, rows' overflow pages); starting over, it
    // reuses its start.
    assert.ok(wal < offloadBytes + (4 << 20), `the log file grew by ${wal - offloadBytes} bytes`);
    await checkpoints.stop();
  } finally {
    await readers.close();
    db.close();
  }
});

test("the main connection checkpoints only what the thread's checkpoint left few of, or a log grown too long", async () => {
  const { db, file } = database('gap');
  let answer = { log: 0, copied: 0 };
  const checkpoints = new BackgroundCheckpoints(
    db,
    `${file}-wal`,
    { checkpoint: async () => answer },
    { everyMs: 60_000, offloadBytes: 0, restartFrames: 200 },
  );
  const here = checkpointsHere(db);
  const tickAfterWrite = async (log: number, copied: number): Promise<number> => {
    answer = { log, copied };
    write(db, 4);
    here.count = 0;
    await checkpoints.tick();
    return here.count;
  };
  try {
    assert.equal(await tickAfterWrite(100, 20), 0, 'a short log is left to the thread');
    assert.equal(await tickAfterWrite(500, 100), 0, 'a long log the thread left much of: 400 frames to copy here');
    assert.equal(await tickAfterWrite(500, 490), 1, 'a long log the thread left few of: copied here, and it starts over');
    assert.equal(await tickAfterWrite(900, 100), 1, 'a log four times too long: copied here whatever is left');
    await checkpoints.stop();
  } finally {
    here.restore();
    db.close();
  }
});

test('a writer that catches up between its transactions keeps the log bounded; the main connection copies none of it', async () => {
  const { db, file } = database('catch-up');
  const readers = new SqliteReaders(file, 1);
  const offloadBytes = statSync(`${file}-wal`).size + (64 << 10);
  const checkpoints = new BackgroundCheckpoints(db, `${file}-wal`, readers, { everyMs: 60_000, offloadBytes, restartFrames: 200 });
  const here = checkpointsHere(db);
  try {
    write(db, 400);
    await checkpoints.tick();
    assert.equal(checkpoints.offloading, true);
    await checkpoints.catchUp(); // the writer's first wait between two transactions
    here.count = 0;
    for (let round = 0; round < 12; round++) {
      // The writer writes, a timer's checkpoint races more of its writes (leaving few frames, which the main connection
      // would copy), then the writer waits between two transactions while the thread copies the rest.
      write(db, 200);
      const ticked = checkpoints.tick();
      write(db, 200);
      await ticked;
      await checkpoints.catchUp();
    }
    assert.equal(here.count, 0, 'the main connection checkpointed');
    const wal = statSync(`${file}-wal`).size;
    assert.ok(wal < offloadBytes + (4 << 20), `the log file grew by ${wal - offloadBytes} bytes`);
    assert.equal(db.prepare('SELECT count(*) FROM filler').pluck().get(), 100 + 1200, 'every row kept');
    await checkpoints.stop();
  } finally {
    here.restore();
    await readers.close();
    db.close();
  }
});
