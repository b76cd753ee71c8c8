// Proves the SQLite vector index on a real database file: exact and HNSW answers against a brute-force reference,
// bank isolation, filters, deletes, writes seen from a second connection, and snapshots (reuse, catch-up, rejection).
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { random } from '../../../../benchmarks/random.ts';
import type { FactFilter } from '../../ports.ts';
import { openDatabase, type Db } from '../database.ts';
import { dot } from '../../../core/dot.ts';
import { batchTop } from '../../../core/index.ts';
import { FlatVectors } from './flat.ts';
import { encodeFlat, FlatFile } from './flat-file.ts';
import { HnswGraph, Labels, PendingLabels } from './hnsw.ts';
import { decodeVector, encodeVector, NATIVE_SCAN_MIN, SqliteVectorIndex } from './index.ts';

const DIM = 16;

function unit(v: Float32Array): Float32Array {
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}

/** Unit vectors around a few random centres, so nearest neighbours are meaningful. */
function vectorSource(seed: number): () => Float32Array {
  const rnd = random(seed);
  const gauss = () => Math.sqrt(-2 * Math.log(rnd() || 1e-9)) * Math.cos(2 * Math.PI * rnd());
  const centres = Array.from({ length: 12 }, () => Float32Array.from({ length: DIM }, gauss));
  return () => {
    const c = centres[Math.floor(rnd() * centres.length)];
    return unit(c.map((x) => x + gauss() * 0.7));
  };
}

interface FactModel {
  id: string;
  bankId: string;
  kind: 'world' | 'experience' | 'observation';
  tags: string[];
  status: string;
  createdAt: string;
  supersededAt: string | null;
  vector: Float32Array;
}

/** A database file plus a model of what was written to it, for reference answers. */
class World {
  readonly dir = mkdtempSync(join(tmpdir(), 'cairn-vectors-'));
  readonly file = join(this.dir, 'cairn.db');
  readonly db: Db = openDatabase(this.file);
  readonly facts = new Map<string, FactModel>();
  private readonly connections: Db[] = [this.db];
  private counter = 0;

  connect(): Db {
    const db = openDatabase(this.file);
    this.connections.push(db);
    return db;
  }

  addBank(id: string, createdAt = new Date().toISOString()): void {
    this.db.prepare('INSERT INTO banks (id, name, created_at, updated_at) VALUES (?, ?, ?, ?)').run(id, id, createdAt, createdAt);
  }

  /** Adds a fact with its vector (null: a fact without one). */
  addFact(bankId: string, vector: Float32Array | null, extra: Partial<FactModel> = {}): FactModel {
    const n = this.counter++;
    const fact: FactModel = {
      id: `${bankId}-f${n}`,
      bankId,
      kind: 'world',
      tags: [],
      status: 'active',
      createdAt: new Date(Date.UTC(2024, 0, 1) + n * 60_000).toISOString(),
      supersededAt: null,
      vector: vector ?? new Float32Array(0),
      ...extra,
    };
    const { lastInsertRowid } = this.db
      .prepare(
        `INSERT INTO facts (id, bank_id, kind, text, mentioned_at, tags, status, superseded_at, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        fact.id,
        bankId,
        fact.kind,
        `fact ${n}`,
        fact.createdAt,
        JSON.stringify(fact.tags),
        fact.status,
        fact.supersededAt,
        fact.createdAt,
        fact.createdAt,
      );
    if (!vector) return fact;
    this.db
      .prepare('INSERT INTO fact_vectors (fact_rid, bank_id, vector) VALUES (?, ?, ?)')
      .run(lastInsertRowid, bankId, encodeVector(vector));
    this.facts.set(fact.id, fact);
    return fact;
  }

  deleteFact(id: string): void {
    this.db.prepare('DELETE FROM facts WHERE id = ?').run(id);
    this.facts.delete(id);
  }

  setVector(id: string, vector: Float32Array): void {
    this.db
      .prepare('UPDATE fact_vectors SET vector = ? WHERE fact_rid = (SELECT rid FROM facts WHERE id = ?)')
      .run(encodeVector(vector), id);
    this.facts.get(id)!.vector = vector;
  }

  /** Brute force over the model: the k best facts of the bank passing the filter. */
  exact(bankId: string, query: Float32Array, k: number, filter: FactFilter = {}): string[] {
    const passes = (f: FactModel) =>
      (!filter.kinds || filter.kinds.includes(f.kind)) &&
      (filter.tags ?? []).every((t) => f.tags.includes(t)) &&
      (filter.recordedBefore
        ? f.createdAt <= filter.recordedBefore &&
          (filter.includeSuperseded || f.supersededAt === null || f.supersededAt > filter.recordedBefore)
        : filter.includeSuperseded || f.status === 'active');
    return [...this.facts.values()]
      .filter((f) => f.bankId === bankId && passes(f))
      .map((f) => ({ id: f.id, score: f.vector.reduce((s, x, i) => s + x * query[i], 0) }))
      .sort((a, b) => b.score - a.score)
      .slice(0, k)
      .map((s) => s.id);
  }

  close(): void {
    for (const db of this.connections) db.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

function recall(got: string[], want: string[]): number {
  const set = new Set(want);
  return want.length === 0 ? 1 : got.filter((id) => set.has(id)).length / want.length;
}

async function averageRecall(
  index: SqliteVectorIndex,
  world: World,
  bankId: string,
  queries: Float32Array[],
  k: number,
  filter?: FactFilter,
) {
  let sum = 0;
  for (const q of queries)
    sum += recall(
      (await index.search(bankId, q, k, filter)).map((s) => s.id),
      world.exact(bankId, q, k, filter),
    );
  return sum / queries.length;
}

/** A bank of n facts: a tenth experiences, a thirtieth tagged "rare", some superseded. */
function fill(world: World, bankId: string, n: number, next: () => Float32Array): void {
  world.addBank(bankId);
  for (let i = 0; i < n; i++) {
    world.addFact(bankId, next(), {
      kind: i % 10 === 0 ? 'experience' : 'world',
      tags: i % 30 === 0 ? ['rare', 'x'] : ['x'],
      status: i % 7 === 0 ? 'superseded' : 'active',
      supersededAt: i % 7 === 0 ? new Date(Date.UTC(2024, 0, 1) + (i + 50) * 60_000).toISOString() : null,
    });
  }
}

/** Counts the calls of a prototype's method (private ones too) until restored. */
function countCalls(prototype: object, name: string): { readonly count: number; restore(): void } {
  const methods = prototype as Record<string, (...args: unknown[]) => unknown>;
  const original = methods[name];
  let count = 0;
  methods[name] = function (this: unknown, ...args: unknown[]) {
    count++;
    return original.apply(this, args);
  };
  return {
    get count() {
      return count;
    },
    restore: () => {
      methods[name] = original;
    },
  };
}

const queriesFrom = (next: () => Float32Array, n: number) => Array.from({ length: n }, next);

test('encodeVector and decodeVector round-trip, also from an unaligned buffer', () => {
  const v = Float32Array.from([0.5, -1.25, 3e-7, 42]);
  assert.deepEqual(decodeVector(encodeVector(v)), v);
  const unaligned = Buffer.concat([Buffer.from([9]), encodeVector(v)]).subarray(1);
  assert.deepEqual(decodeVector(unaligned), v);
  assert.throws(() => decodeVector(Buffer.alloc(6)), /multiple of 4/);
});

test('exact search equals brute force, best first, with inner-product scores', async () => {
  const world = new World();
  try {
    const next = vectorSource(1);
    fill(world, 'b', 400, next);
    fill(world, 'large', NATIVE_SCAN_MIN + 500, next); // ranked by the native scan first
    const index = new SqliteVectorIndex(world.db, { hnswThreshold: Infinity });
    for (const q of queriesFrom(next, 15)) {
      const got = await index.search('b', q, 10);
      assert.deepEqual(
        got.map((s) => s.id),
        world.exact('b', q, 10),
      );
      for (const s of got) {
        const want = world.facts.get(s.id)!.vector.reduce((acc, x, i) => acc + x * q[i], 0);
        assert.ok(Math.abs(s.score - want) < 1e-5);
      }
      assert.deepEqual(
        (await index.search('large', q, 10)).map((s) => s.id),
        world.exact('large', q, 10),
      );
    }
    assert.equal(index.stats('b')?.mode, 'exact');
    assert.deepEqual(await index.search('missing-bank', queriesFrom(next, 1)[0], 5), []);
    await assert.rejects(index.search('b', new Float32Array(DIM + 1), 5), /17 dimensions but bank "b" holds 16-dimensional/);
  } finally {
    world.close();
  }
});

test('exact search ranks equal scores by rowid, whatever order the index met the vectors in', async () => {
  const world = new World();
  try {
    const next = vectorSource(9);
    world.addBank('b');
    const same = next();
    const first = world.addFact('b', next());
    const a = world.addFact('b', same);
    const b = world.addFact('b', Float32Array.from(same));
    const index = new SqliteVectorIndex(world.db, { hnswThreshold: Infinity });
    await index.warm('b');
    // A removal moves the last vector held (b's) into the freed first place, ahead of a's.
    world.deleteFact(first.id);
    const got = (await index.search('b', same, 2)).map((s) => s.id);
    assert.deepEqual(got, [a.id, b.id]);
    const reopened = new SqliteVectorIndex(world.connect(), { hnswThreshold: Infinity });
    assert.deepEqual(
      (await reopened.search('b', same, 2)).map((s) => s.id),
      got,
      'the same order from an index loaded afresh',
    );
    await reopened.close();
    await index.close();
  } finally {
    world.close();
  }
});

test('the native scan of a large bank ranks ties at the cut by rowid too, and honours kinds and record times', async () => {
  const world = new World();
  try {
    const next = vectorSource(11);
    fill(world, 'b', NATIVE_SCAN_MIN, next);
    const same = next();
    // 60 copies of one vector (more than the scan's first fetch), every third an experience, recorded one a minute.
    const copies = Array.from({ length: 60 }, (_, i) =>
      world.addFact('b', Float32Array.from(same), { kind: i % 3 === 0 ? 'experience' : 'world' }),
    );
    const index = new SqliteVectorIndex(world.db, { hnswThreshold: Infinity });
    const ids = (filter: FactFilter = {}, k = 10) => index.search('b', same, k, filter).then((got) => got.map((s) => s.id));
    assert.deepEqual(
      await ids(),
      copies.slice(0, 10).map((f) => f.id),
    );
    assert.deepEqual(
      await ids({ kinds: ['experience'] }),
      copies
        .filter((_, i) => i % 3 === 0)
        .slice(0, 10)
        .map((f) => f.id),
    );
    assert.deepEqual(await ids({}, 70), world.exact('b', same, 70));
    const before = copies[4].createdAt;
    assert.deepEqual(
      (await ids({ recordedBefore: before })).slice(0, 5),
      copies.slice(0, 5).map((f) => f.id),
    );
    assert.deepEqual(await ids({ recordedBefore: before }), world.exact('b', same, 10, { recordedBefore: before }));
    await index.close();
  } finally {
    world.close();
  }
});

test('the native scan ranks by the query it is given, also when the query is a view into a larger array', () => {
  // usearch reads an array from the start of its buffer: a stored vector used as the query must be copied first.
  const next = vectorSource(13);
  const flat = new FlatVectors(DIM, 0);
  const first = next();
  // The first vector (what usearch would read as the query) short, so its own best candidates score low for it.
  flat.put(1, encodeVector(first.map((x) => x * 1e-3)), 0, 0);
  for (let i = 0; i < NATIVE_SCAN_MIN + 500; i++) flat.put(i + 2, encodeVector(i % 5 === 0 ? first : next()), 0, 0);
  const related = [...flat.rids.subarray(0, flat.size)].filter((rid) => {
    const v = flat.vector(rid)!;
    const d = dot(v, 0, first, DIM);
    return d > 0.2 && d < 0.9;
  });
  assert.ok(related.length >= 2);
  for (const q of related.slice(0, 2).map((rid) => flat.vector(rid)!)) {
    const scored = Array.from({ length: flat.size }, (_, s) => ({
      rid: flat.rids[s],
      score: Math.fround(dot(flat.data, s * DIM, q, DIM)),
    }));
    scored.sort((a, b) => b.score - a.score || a.rid - b.rid);
    assert.deepEqual(
      flat.best(q, null, 10).rids,
      scored.slice(0, 10).map((x) => x.rid),
    );
  }
});

test('a rare kind is ranked from its own slots as a pass over every slot ranks it, through adds, kind changes and removals', () => {
  const next = vectorSource(17);
  const flat = new FlatVectors(DIM, 0);
  const OBSERVATION = 2;
  const mask = 1 << OBSERVATION;
  /** The reference: every slot of the kind recorded by `before`, scored, ties by rid. */
  const brute = (q: Float32Array, m: number, before = Infinity): number[] =>
    Array.from({ length: flat.size }, (_, s) => s)
      .filter((s) => flat.kinds[s] === OBSERVATION && !(flat.times[s] > before))
      .map((s) => ({ rid: flat.rids[s], score: dot(flat.data, s * DIM, q, DIM) }))
      .sort((a, b) => b.score - a.score || a.rid - b.rid)
      .slice(0, m)
      .map((x) => x.rid);
  let rid = 0;
  const add = (n: number): void => {
    for (let i = 0; i < n; i++, rid++) flat.put(rid, encodeVector(next()), rid % 40 === 0 ? OBSERVATION : 0, rid);
  };
  const check = (what: string): void => {
    for (const before of [Infinity, rid / 2]) {
      const q = next();
      assert.deepEqual(flat.best(q, mask, 7, before).rids, brute(q, 7, before), `${what} (before ${before})`);
    }
  };
  add(2000);
  check('first scan');
  add(300); // appended after the slots were listed
  check('after adds');
  flat.put(41, encodeVector(next()), OBSERVATION, 41); // a world vector becomes an observation
  flat.put(80, encodeVector(next()), 0, 80); // an observation becomes a world vector
  check('after kind changes');
  for (const gone of [0, 40, 1999, 5, 120]) flat.remove(gone); // moves the last slots into the holes
  add(50);
  check('after removals');
  flat.put(160, encodeVector(next()), OBSERVATION, 160); // rewritten in place, same kind
  check('after a rewrite');
});

test('queries ranked together by the batched product get what each ranked alone gets, kinds and record times included', async () => {
  const next = vectorSource(17);
  const flat = new FlatVectors(DIM, 0);
  // Three kinds, record times 0..n, and copies of a few vectors (ties at the cut are decided by rowid).
  const copies = [next(), next()];
  for (let i = 0; i < NATIVE_SCAN_MIN * 2; i++) flat.put(i + 1, encodeVector(i % 7 === 0 ? copies[i % 2] : next()), i % 3, i);
  const queries = [copies[0], copies[1], next(), next(), flat.vector(40)!];
  for (const [mask, m, before] of [
    [null, 18, Infinity],
    [0b011, 10, Infinity],
    [0b001, 5, NATIVE_SCAN_MIN],
  ] as const) {
    const together = await flat.bestMany(queries, mask, m, before);
    assert.equal(together.length, queries.length);
    assert.ok(
      together.some((r) => r !== null),
      'the batch settles queries',
    );
    together.forEach((r, i) => {
      if (r) assert.deepEqual(r, flat.best(queries[i], mask, m, before));
    });
  }
  // With a floor, what reaches it is the same as the best that reach it.
  const reaching = (r: { rids: number[]; scores: number[] } | null, min: number) =>
    r?.rids.flatMap((rid, j) => (r.scores[j] >= min ? [[rid, r.scores[j]]] : []));
  for (const min of [0.3, 0.99]) {
    const floored = await flat.bestMany(queries, null, 18, Infinity, min);
    assert.ok(floored.filter((r) => r !== null).length >= 3, 'the floor settles queries (not those tied at the cut)');
    floored.forEach((r, i) => {
      if (r) assert.deepEqual(reaching(r, min), reaching(flat.best(queries[i], null, 18), min));
    });
  }
  // A write while the product runs: nothing is answered from it.
  const pending = flat.bestMany(queries, null, 10);
  flat.put(1, encodeVector(next()), 0, 0);
  assert.deepEqual(
    await pending,
    queries.map(() => null),
  );
});

test('queries tied at the cut are ranked together again, fetching more, until they settle', async () => {
  const next = vectorSource(23);
  const flat = new FlatVectors(DIM, 0);
  // 100 copies of one sentence's vector among 4096: asked for its 5 best, the first fetch holds only copies.
  const copy = next();
  for (let i = 0; i < NATIVE_SCAN_MIN * 4; i++) flat.put(i + 1, encodeVector(i % 40 === 3 ? copy : next()), 0, i);
  const queries = [copy, next(), copy.map((x) => x * 0.5)];
  const together = await flat.bestMany(queries, null, 5);
  together.forEach((r, i) => assert.deepEqual(r, flat.best(queries[i], null, 5), `query ${i}`));
  assert.deepEqual(together[0]?.rids, [4, 44, 84, 124, 164], 'the copies recorded first (equal scores by rowid)');
});

test('the batched product ranks rows as a brute-force scan does', async () => {
  const next = vectorSource(19);
  const n = 300;
  const data = new Float32Array(n * DIM);
  for (let i = 0; i < n; i++) data.set(next(), i * DIM);
  const queries = [next(), next(), next()];
  const found = await batchTop(data, n, DIM, queries, 7);
  assert.ok(found, 'onnxruntime is installed with the project');
  queries.forEach((q, i) => {
    const brute = Array.from({ length: n }, (_, r) => ({ r, s: dot(data, r * DIM, q, DIM) })).sort((a, b) => b.s - a.s);
    assert.deepEqual(
      [...found[i].rows].map(Number),
      brute.slice(0, 7).map((x) => x.r),
    );
    assert.ok(Math.abs(found[i].last - brute[6].s) < 1e-4);
  });
  assert.equal(await batchTop(data, n, DIM, queries, n + 1), null, 'more than there are rows');
});

test("a graph's live labels: the sorted ones it was reconciled with, and those added and removed since", () => {
  const labels = new Labels(Float64Array.from([2, 5, 9, 14]));
  assert.equal(labels.size, 4);
  assert.deepEqual(
    [1, 2, 5, 9, 14, 15].map((l) => labels.has(l)),
    [false, true, true, true, true, false],
  );
  labels.add(15);
  labels.add(5); // live already
  assert.equal(labels.delete(9), true);
  assert.equal(labels.delete(9), false, 'not live any more');
  assert.equal(labels.delete(1), false, 'never live');
  assert.equal(labels.delete(15), true);
  labels.add(9); // back
  labels.add(1);
  assert.deepEqual(
    [1, 2, 5, 9, 14, 15].map((l) => labels.has(l)),
    [true, true, true, true, true, false],
  );
  assert.equal(labels.size, 5);
});

test('HNSW search reaches recall@10 >= 0.95 against brute force', async () => {
  const world = new World();
  try {
    const next = vectorSource(2);
    fill(world, 'b', 1500, next);
    const index = new SqliteVectorIndex(world.db, { hnswThreshold: 1 });
    const stats = await index.warm('b');
    assert.equal(stats?.mode, 'hnsw');
    assert.equal(stats?.graphSource, 'built');
    const r = await averageRecall(index, world, 'b', queriesFrom(next, 40), 10, { includeSuperseded: true });
    assert.ok(r >= 0.95, `recall@10 ${r}`);
    await index.close();
  } finally {
    world.close();
  }
});

for (const mode of ['exact', 'hnsw'] as const) {
  test(`${mode}: banks are isolated and deleted facts disappear`, async () => {
    const world = new World();
    try {
      const next = vectorSource(3);
      fill(world, 'a', 300, next);
      fill(world, 'b', 300, next);
      const index = new SqliteVectorIndex(world.db, { hnswThreshold: mode === 'hnsw' ? 1 : Infinity });
      await index.warm('a');
      await index.warm('b');
      assert.equal(index.stats('a')?.mode, mode);
      const bFact = [...world.facts.values()].find((f) => f.bankId === 'b' && f.status === 'active')!;
      const fromA = await index.search('a', bFact.vector, 20);
      assert.equal(fromA.length, 20);
      assert.ok(fromA.every((s) => world.facts.get(s.id)?.bankId === 'a'));
      const fromB = await index.search('b', bFact.vector, 1);
      assert.equal(fromB[0].id, bFact.id);
      assert.ok(Math.abs(fromB[0].score - 1) < 1e-5);

      world.deleteFact(bFact.id);
      const after = await index.search('b', bFact.vector, 10);
      assert.equal(index.stats('b')?.vectors, 299);
      assert.equal(index.stats('b')?.graphVectors, mode === 'hnsw' ? 299 : null);
      assert.ok(!after.some((s) => s.id === bFact.id));
      assert.deepEqual(
        after.map((s) => s.id),
        world.exact('b', bFact.vector, 10),
      );
      await index.close();
    } finally {
      world.close();
    }
  });

  test(`${mode}: filters (kinds, tags, superseded, recordedBefore) match brute force, over-fetching or filtering first`, async () => {
    const world = new World();
    try {
      const next = vectorSource(4);
      fill(world, 'b', NATIVE_SCAN_MIN + 300, next); // over the native scan's size
      const threshold = mode === 'hnsw' ? 1 : Infinity;
      // The second index may over-fetch only a little, so selective filters take the filter-first path; the third
      // has a graph for the bank but scans the few experiences exactly.
      const indexes = [
        new SqliteVectorIndex(world.db, { hnswThreshold: threshold, efSearch: 400 }),
        new SqliteVectorIndex(world.db, { hnswThreshold: threshold, efSearch: 400, maxOverfetch: 40 }),
        new SqliteVectorIndex(world.db, { hnswThreshold: mode === 'hnsw' ? 200 : Infinity, efSearch: 400 }),
      ];
      for (const index of indexes) assert.equal((await index.warm('b'))?.mode, mode);
      const filters: FactFilter[] = [
        {},
        { includeSuperseded: true },
        { kinds: ['experience'] },
        { tags: ['rare'] },
        { tags: ['rare', 'x'], kinds: ['world'] },
        { tags: ['nobody'] },
        { recordedBefore: new Date(Date.UTC(2024, 0, 1) + 300 * 60_000).toISOString() },
        { recordedBefore: new Date(Date.UTC(2024, 0, 1) + 300 * 60_000).toISOString(), includeSuperseded: true },
        // Fewer facts recorded by then than the third index's threshold (scanned exactly, the later ones skipped),
        // and none at all.
        { recordedBefore: new Date(Date.UTC(2024, 0, 1) + 100 * 60_000).toISOString(), kinds: ['world', 'experience'] },
        { recordedBefore: new Date(Date.UTC(2023, 0, 1)).toISOString() },
      ];
      for (const index of indexes) {
        for (const filter of filters) {
          for (const q of queriesFrom(next, 5)) {
            const got = (await index.search('b', q, 10, filter)).map((s) => s.id);
            const want = world.exact('b', q, 10, filter);
            assert.deepEqual(got, want, `filter ${JSON.stringify(filter)}`);
          }
        }
        await index.close();
      }
    } finally {
      world.close();
    }
  });

  test(`${mode}: a second connection (another process) sees writes made through the first`, async () => {
    const world = new World();
    try {
      const next = vectorSource(5);
      fill(world, 'b', 400, next);
      const other = new SqliteVectorIndex(world.connect(), { hnswThreshold: mode === 'hnsw' ? 1 : Infinity });
      await other.warm('b');
      const q = next();
      assert.deepEqual(
        (await other.search('b', q, 5)).map((s) => s.id),
        world.exact('b', q, 5),
      );

      const added = world.addFact('b', q);
      assert.equal((await other.search('b', q, 1))[0].id, added.id);
      const observation = world.addFact('b', next(), { kind: 'observation' });
      assert.deepEqual(
        (await other.search('b', q, 3, { kinds: ['observation'] })).map((s) => s.id),
        [observation.id],
      );
      const moved = world.exact('b', q, 2)[1];
      world.setVector(moved, unit(q.map((x, i) => x + (i === 0 ? 0.01 : 0))));
      assert.deepEqual(
        (await other.search('b', q, 2)).map((s) => s.id),
        [added.id, moved],
      );
      world.deleteFact(added.id);
      assert.deepEqual(
        (await other.search('b', q, 5)).map((s) => s.id),
        world.exact('b', q, 5),
      );

      // The bank deleted (by this process, which forgets it) and created again under the same id: nothing of the old
      // one survives in the other process, even where a new fact without a vector reuses an old fact's rid.
      const oldest = world.db.prepare('SELECT id FROM facts WHERE rid = 1').pluck().get() as string;
      const oldVector = world.facts.get(oldest)!.vector;
      world.db.prepare('DELETE FROM banks WHERE id = ?').run('b');
      new SqliteVectorIndex(world.db).forgetBank('b');
      for (const f of [...world.facts.values()]) world.facts.delete(f.id);
      world.addBank('b', '2030-01-01T00:00:00.000Z');
      const vectorless = world.addFact('b', null);
      assert.equal(world.db.prepare('SELECT rid FROM facts WHERE id = ?').pluck().get(vectorless.id), 1);
      const fresh = world.addFact('b', next());
      assert.deepEqual(
        (await other.search('b', oldVector, 5)).map((s) => s.id),
        [fresh.id],
      );
      assert.equal(other.stats('b')?.vectors, 1);
      await other.close();
    } finally {
      world.close();
    }
  });
}

test('a large batch of writes from elsewhere swaps the graph out and back in, instead of blocking a search', async () => {
  const world = new World();
  try {
    const next = vectorSource(9);
    fill(world, 'b', 300, next);
    const index = new SqliteVectorIndex(world.connect(), { hnswThreshold: 1, maxGraphCatchUp: 5 });
    assert.equal((await index.warm('b'))?.mode, 'hnsw');
    for (let i = 0; i < 3; i++) world.addFact('b', next());
    const q = next();
    assert.deepEqual(
      (await index.search('b', q, 10)).map((s) => s.id),
      world.exact('b', q, 10),
    );
    assert.equal(index.stats('b')?.mode, 'hnsw'); // a small batch goes into the graph
    for (let i = 0; i < 20; i++) world.addFact('b', next());
    assert.deepEqual(
      (await index.search('b', q, 10)).map((s) => s.id),
      world.exact('b', q, 10),
    );
    assert.equal(index.stats('b')?.mode, 'exact'); // answered exactly while a new graph is built
    const stats = await index.warm('b');
    assert.equal(stats?.mode, 'hnsw');
    assert.equal(stats?.graphVectors, 323);
    await index.close();
  } finally {
    world.close();
  }
});

test('a batch too large to insert at once reaches the graph a slice per turn, and is found meanwhile', async () => {
  const world = new World();
  try {
    const next = vectorSource(10);
    fill(world, 'b', 300, next);
    const index = new SqliteVectorIndex(world.connect(), { hnswThreshold: 1, efSearch: 400 });
    assert.equal((await index.warm('b'))?.graphVectors, 300);
    const added = Array.from({ length: 400 }, () => world.addFact('b', next()));
    // The search catches up: a few of the new vectors enter the graph at once, the rest are scored exactly beside it.
    const q = added[250].vector;
    const found = (await index.search('b', q, 10)).map((s) => s.id);
    const stats = index.stats('b');
    assert.equal(stats?.mode, 'hnsw');
    assert.equal(stats?.vectors, 700);
    assert.ok((stats?.graphVectors ?? 0) < 700, `not all 400 inserted in one turn (${stats?.graphVectors} in the graph)`);
    assert.equal(found[0], added[250].id, 'a pending vector is found');
    assert.ok(recall(found, world.exact('b', q, 10)) >= 0.9);
    world.deleteFact(added[399].id); // gone before the graph took it
    const settled = await index.warm('b');
    assert.equal(settled?.graphVectors, 699);
    for (const f of [added[0], added[398], world.facts.get('b-f8')!])
      assert.equal((await index.search('b', f.vector, 1))[0].id, f.id, `${f.id} from the graph`);
    assert.ok((await averageRecall(index, world, 'b', queriesFrom(next, 20), 10)) >= 0.9);
    await index.close();
  } finally {
    world.close();
  }
});

test('pending labels are read in record-time order: those recorded by a bound only, stale entries skipped', () => {
  const p = new PendingLabels();
  for (const [rid, time] of [
    [1, 50],
    [2, 10],
    [3, 30],
    [4, 10],
    [2, 10],
  ])
    p.add(rid, time);
  const by = (before: number) => {
    const out: number[] = [];
    p.recordedBy(before, (rid) => out.push(rid));
    return out;
  };
  assert.deepEqual(by(30), [2, 4, 3], 'by time, equal times in the order added, once each');
  assert.equal(p.countBy(30), 3);
  assert.deepEqual(by(9), []);
  p.delete(4); // entered the graph another way, or removed
  p.add(3, 60); // pending again with another time
  assert.deepEqual(by(Infinity), [2, 1, 3]);
  assert.deepEqual([p.shift(), p.shift(), p.size, p.shift(), p.shift()], [2, 1, 1, 3, undefined], 'the earliest enter the graph first');
});

test('many pending vectors a search would score one by one send it to an exact scan; a bound before them keeps the graph', async () => {
  const world = new World();
  const proto = HnswGraph.prototype;
  const search = proto.search;
  let graphSearches = 0;
  proto.search = function (this: HnswGraph, ...args: Parameters<typeof search>) {
    graphSearches++;
    return search.apply(this, args);
  };
  try {
    const next = vectorSource(12);
    fill(world, 'b', 2000, next);
    const index = new SqliteVectorIndex(world.connect(), { hnswThreshold: 1, efSearch: 400 });
    assert.equal((await index.warm('b'))?.graphVectors, 2000);
    const bound = new Date(Date.UTC(2024, 0, 1) + 2000 * 60_000).toISOString(); // after the 2000, before the rest
    const q = next();
    const check = async (filter: FactFilter, graph: boolean, label: string) => {
      const before = graphSearches;
      const found = (await index.search('b', q, 10, filter)).map((s) => s.id);
      assert.ok(recall(found, world.exact('b', q, 10, filter)) >= 0.9, `${label}: found`);
      assert.equal(graphSearches > before, graph, `${label}: ${graph ? 'through the graph' : 'exactly'}`);
    };
    // 60 pending of 2060: scored beside the graph's answer.
    for (let i = 0; i < 60; i++) world.addFact('b', next());
    await check({}, true, '60 pending');
    // 800 more: scoring them one by one costs more than a scan, unless the search is bounded before them.
    for (let i = 0; i < 800; i++) world.addFact('b', next());
    await check({ recordedBefore: bound }, true, 'bounded before 800 pending');
    await check({}, false, '800 pending');
    await check({ recordedBefore: '2030-01-01T00:00:00.000Z' }, false, 'bounded after 800 pending');
    await index.warm('b');
    await check({}, true, 'none pending');
    await index.close();
  } finally {
    proto.search = search;
    world.close();
  }
});

test('closing with a graph far behind saves the flat store, not the graph; the next start catches up', async () => {
  const world = new World();
  try {
    const next = vectorSource(13);
    fill(world, 'b', 300, next);
    const snapshotDir = join(world.dir, 'snapshots');
    const first = new SqliteVectorIndex(world.connect(), { hnswThreshold: 1, efSearch: 400, snapshotDir });
    assert.equal((await first.warm('b'))?.graphVectors, 300);
    await first.close(); // the graph's snapshot, at the 300
    const graphSeq = () =>
      JSON.parse(readFileSync(join(snapshotDir, readdirSync(snapshotDir).find((f) => f.endsWith('.json'))!), 'utf8')).seq;
    const seq300 = graphSeq();
    const second = new SqliteVectorIndex(world.connect(), { hnswThreshold: 1, efSearch: 400, snapshotDir, maxGraphCatchUp: 2000 });
    assert.equal((await second.warm('b'))?.graphSource, 'snapshot');
    for (let i = 0; i < 900; i++) world.addFact('b', next());
    await second.search('b', next(), 5); // catches up: 900 pending for the graph
    assert.ok((second.stats('b')?.graphVectors ?? 0) < 1200, 'the graph is behind when closing');
    await second.close();
    assert.equal(graphSeq(), seq300, 'no graph snapshot written on close (it would first insert every pending vector)');
    const third = new SqliteVectorIndex(world.connect(), { hnswThreshold: 1, efSearch: 400, snapshotDir });
    const stats = await third.warm('b');
    assert.equal(stats?.flatSource, 'snapshot', 'the flat store was saved on close');
    assert.equal(stats?.vectors, 1200);
    assert.equal(stats?.graphVectors, 1200);
    assert.ok((await averageRecall(third, world, 'b', queriesFrom(next, 20), 10)) >= 0.9);
    await third.close();
  } finally {
    world.close();
  }
});

test('no snapshot is written on close for a bank another connection deleted, or is deleting', async () => {
  const world = new World();
  try {
    const next = vectorSource(17);
    for (const bankId of ['gone', 'going']) {
      fill(world, bankId, 200, next);
    }
    const snapshotDir = join(world.dir, 'snapshots');
    const index = new SqliteVectorIndex(world.connect(), { hnswThreshold: 1, efSearch: 400, snapshotDir });
    for (const bankId of ['gone', 'going']) {
      assert.equal((await index.warm(bankId))?.graphVectors, 200);
      for (let i = 0; i < 5; i++) world.addFact(bankId, next());
      await index.search(bankId, next(), 3); // changes since its last snapshot
    }
    // Another connection deletes one bank and begins deleting the other (and removes their snapshot files, as the
    // store's delete does); this index was never told.
    world.db.prepare("DELETE FROM banks WHERE id = 'gone'").run();
    world.db.prepare("INSERT INTO bank_purges (bank_id, reason, started_at) VALUES ('going', 'test', '2024-01-01')").run();
    for (const name of readdirSync(snapshotDir)) rmSync(join(snapshotDir, name), { force: true });
    await index.close();
    assert.deepEqual(readdirSync(snapshotDir), []);
  } finally {
    world.close();
  }
});

test('a graph crowded by later copies of the query, or missing some copies, is answered exactly from memory', async () => {
  const world = new World();
  try {
    const next = vectorSource(11);
    fill(world, 'b', 300, next);
    const copy = next();
    const at = (minute: number) => new Date(Date.UTC(2023, 0, 1) + minute * 60_000).toISOString();
    const older = [1, 2, 3].map((m) => world.addFact('b', copy, { createdAt: at(m) }));
    for (let i = 0; i < 3000; i++) world.addFact('b', copy, { createdAt: new Date(Date.UTC(2025, 0, 1) + i * 60_000).toISOString() });
    const index = new SqliteVectorIndex(world.connect(), { hnswThreshold: 1, maxOverfetch: 40 });
    assert.equal((await index.warm('b'))?.mode, 'hnsw');
    // Reading every fact instead (what a crowded ranking fell back to) is what this must not need.
    const readAll = countCalls(SqliteVectorIndex.prototype, 'prefiltered');
    try {
      // Bounds before the other facts (three candidates in all) and after them (the copies among 300 others).
      for (const recordedBefore of [at(10), '2024-12-31T00:00:00.000Z']) {
        const found = await index.searchMany('b', [copy, copy], 2, { recordedBefore, kinds: ['world'] }, 0.9);
        for (const hits of found)
          assert.deepEqual(
            hits.map((h) => h.id),
            [older[0].id, older[1].id],
            `before ${recordedBefore}: the copies recorded first, equal scores by rowid`,
          );
      }
      assert.equal(readAll.count, 0, 'answered without reading every fact');
    } finally {
      readAll.restore();
    }
    await index.close();
  } finally {
    world.close();
  }
});

test('a bank made mostly of exact copies keeps its other vectors reachable: one graph node per distinct vector', async () => {
  const world = new World();
  try {
    const next = vectorSource(21);
    const rnd = random(22);
    const repeated = Array.from({ length: 40 }, next);
    world.addBank('b');
    const uniques: FactModel[] = [];
    const copiesOf = new Map<Float32Array, FactModel[]>(repeated.map((v) => [v, []]));
    for (let i = 0; i < 8000; i++) {
      if (rnd() < 0.05) uniques.push(world.addFact('b', next()));
      else {
        const v = repeated[Math.floor(rnd() * repeated.length)];
        copiesOf.get(v)!.push(world.addFact('b', v));
      }
    }
    const snapshotDir = join(world.dir, 'snapshots');
    const options = { hnswThreshold: 1, snapshotDir, snapshotEvery: 1 };
    const reachable = async (index: SqliteVectorIndex, why: string) => {
      let found = 0;
      for (const f of uniques) if ((await index.search('b', f.vector, 1))[0]?.id === f.id) found++;
      assert.equal(found, uniques.length, `${why}: every unique vector finds its own fact (${found} of ${uniques.length})`);
    };
    const first = new SqliteVectorIndex(world.db, options);
    const built = await first.warm('b');
    assert.equal(built?.graphSource, 'built');
    assert.equal(built?.graphVectors, world.facts.size, 'the copies count as held by the graph');
    await reachable(first, 'built');
    // A copied vector's query gets its copies (equal scores, earliest first), as an exact scan does.
    const [v0, v1] = repeated;
    assert.deepEqual(
      (await first.search('b', v0, 5)).map((h) => h.id),
      world.exact('b', v0, 5),
    );
    // The fact whose vector is the graph's node goes: a copy takes its place. A copy changes its vector.
    world.deleteFact(copiesOf.get(v0)![0].id);
    const moved = copiesOf.get(v1)![3];
    const target = next();
    world.setVector(moved.id, target);
    assert.deepEqual(
      (await first.search('b', v0, 5)).map((h) => h.id),
      world.exact('b', v0, 5),
    );
    assert.equal((await first.search('b', target, 1))[0].id, moved.id);
    assert.equal((await first.warm('b'))?.graphVectors, world.facts.size);
    await first.close();
    assert.equal(readdirSync(snapshotDir).filter((f) => f.endsWith('.copies')).length, 1, 'the copies are kept beside the index file');

    // A restart reads the graph and its copies from the snapshot, and answers the same.
    const second = new SqliteVectorIndex(world.connect(), options);
    const loaded = await second.warm('b');
    assert.equal(loaded?.graphSource, 'snapshot');
    assert.equal(loaded?.graphVectors, world.facts.size);
    await reachable(second, 'from the snapshot');
    for (const v of [v0, v1, target])
      assert.deepEqual(
        (await second.search('b', v, 5)).map((h) => h.id),
        world.exact('b', v, 5),
      );
    await second.close();
  } finally {
    world.close();
  }
});

test('copies through changes: vectors rewritten into copies leave the graph, a block deleted oldest first inserts no node per copy, ties stay in rowid order', async () => {
  const world = new World();
  try {
    const next = vectorSource(31);
    const rnd = random(32);
    fill(world, 'b', 4000, next);
    const index = new SqliteVectorIndex(world.db, { hnswThreshold: 1 });
    await index.warm('b');
    // Most vectors overwritten, a few hundred at a time, with copies of a few (as observations rewritten to one text).
    const repeated = Array.from({ length: 40 }, next);
    const facts = [...world.facts.values()];
    const uniques = facts.filter(() => rnd() < 0.05);
    const keep = new Set(uniques);
    let n = 0;
    for (const f of facts) {
      if (keep.has(f)) continue;
      world.setVector(f.id, repeated[Math.floor(rnd() * repeated.length)]);
      if (++n % 400 === 0) await index.warm('b');
    }
    assert.equal((await index.warm('b'))?.graphVectors, world.facts.size);
    let found = 0;
    for (const f of uniques) if ((await index.search('b', f.vector, 1, { includeSuperseded: true }))[0]?.id === f.id) found++;
    assert.equal(found, uniques.length, `every unique vector finds its own fact (${found} of ${uniques.length})`);

    // Ties in rowid order, also for a copy that left and came back.
    const [v] = repeated;
    const copiesOfV = facts.filter((f) => f.vector === v);
    world.setVector(copiesOfV[1].id, next());
    await index.warm('b');
    world.setVector(copiesOfV[1].id, v);
    await index.warm('b');
    assert.deepEqual(
      (await index.search('b', v, 5, { includeSuperseded: true })).map((h) => h.id),
      world.exact('b', v, 5, { includeSuperseded: true }),
    );

    // Every copy of v deleted in one transaction, oldest first: the graph's node goes first, then each copy.
    const inserts = countCalls(HnswGraph.prototype, 'insert');
    try {
      world.db.transaction(() => {
        for (const f of copiesOfV) world.deleteFact(f.id);
      })();
      await index.search('b', v, 5);
      assert.equal((await index.warm('b'))?.graphVectors, world.facts.size);
    } finally {
      inserts.restore();
    }
    assert.ok(inserts.count <= 1, `no node inserted for each deleted copy (${inserts.count} inserts for ${copiesOfV.length} copies)`);
    assert.deepEqual(
      (await index.search('b', repeated[1], 5, { includeSuperseded: true })).map((h) => h.id),
      world.exact('b', repeated[1], 5, { includeSuperseded: true }),
    );
    await index.close();
  } finally {
    world.close();
  }
});

// A small flat snapshot is read at once; a large one on a worker thread, searches meanwhile scanning the file
// (backgroundReadBytes 0 sends these small ones that way too).
for (const [read, backgroundReadBytes] of [
  ['at once', undefined],
  ['in the background', 0],
] as const) {
  test(`a snapshot is reused and caught up, and gives the same answers as a fresh build (read ${read})`, async () => {
    const world = new World();
    try {
      const next = vectorSource(6);
      fill(world, 'b', 800, next);
      const snapshotDir = join(world.dir, 'snapshots');
      const options = { hnswThreshold: 1, efSearch: 400, snapshotDir, snapshotEvery: 10, backgroundReadBytes };
      const first = new SqliteVectorIndex(world.db, options);
      assert.equal((await first.warm('b'))?.graphSource, 'built');
      const meta = () => JSON.parse(readFileSync(join(snapshotDir, readdirSync(snapshotDir).find((f) => f.endsWith('.json'))!), 'utf8'));
      const maxSeq = () => (world.db.prepare('SELECT max(seq) AS s FROM vector_changes').get() as { s: number }).s;
      assert.equal(meta().seq, maxSeq());

      // Changes the first index sees, then snapshots on close.
      for (let i = 0; i < 20; i++) world.addFact('b', next());
      await first.search('b', next(), 5);
      await first.close();
      assert.equal(meta().seq, maxSeq());
      assert.equal(readdirSync(snapshotDir).filter((f) => f.endsWith('.hnsw')).length, 1);

      // Changes made after the snapshot: inserts, deletes, a changed vector.
      const ids = [...world.facts.keys()];
      for (const id of ids.slice(0, 40)) world.deleteFact(id);
      for (let i = 0; i < 30; i++) world.addFact('b', next());
      const changed = ids[100];
      const target = next();
      world.setVector(changed, target);

      const loaded = new SqliteVectorIndex(world.connect(), options);
      const stats = await loaded.warm('b');
      assert.equal(stats?.graphSource, 'snapshot');
      assert.equal(stats?.flatSource, 'snapshot', 'the flat store is read from its snapshot and caught up, not from every row');
      assert.equal(stats?.seq, maxSeq());
      assert.equal(stats?.vectors, world.facts.size);
      assert.equal(stats?.graphVectors, world.facts.size);
      const rebuilt = new SqliteVectorIndex(world.connect(), { hnswThreshold: 1, efSearch: 400 });
      assert.equal((await rebuilt.warm('b'))?.graphSource, 'built');

      assert.equal((await loaded.search('b', target, 1))[0].id, changed);
      for (const q of [target, ...queriesFrom(next, 20)]) {
        const a = (await loaded.search('b', q, 10, { includeSuperseded: true })).map((s) => s.id);
        const b = (await rebuilt.search('b', q, 10, { includeSuperseded: true })).map((s) => s.id);
        assert.deepEqual(a, b);
        assert.deepEqual(a, world.exact('b', q, 10, { includeSuperseded: true }));
      }
      await loaded.close();
      await rebuilt.close();
    } finally {
      world.close();
    }
  });

  test(`a corrupt or foreign snapshot is not trusted: the graph is rebuilt (read ${read})`, async () => {
    const world = new World();
    try {
      const next = vectorSource(7);
      fill(world, 'b', 500, next);
      const snapshotDir = join(world.dir, 'snapshots');
      const options = { hnswThreshold: 1, efSearch: 400, snapshotDir, backgroundReadBytes };
      const first = new SqliteVectorIndex(world.db, options);
      await first.warm('b');
      await first.close();
      const indexFile = join(snapshotDir, readdirSync(snapshotDir).find((f) => f.endsWith('.hnsw'))!);
      const bytes = readFileSync(indexFile);
      bytes.fill(7, Math.floor(bytes.length / 2), Math.floor(bytes.length / 2) + 64); // same size, some bytes wrong
      writeFileSync(indexFile, bytes);
      const flatFile = join(snapshotDir, readdirSync(snapshotDir).find((f) => f.endsWith('.flat'))!);
      const flatBytes = readFileSync(flatFile);
      flatBytes.fill(7, flatBytes.length - 64); // the last vectors' bytes wrong, same size
      writeFileSync(flatFile, flatBytes);

      const second = new SqliteVectorIndex(world.connect(), options);
      const secondStats = await second.warm('b');
      assert.equal(secondStats?.graphSource, 'built');
      assert.equal(secondStats?.flatSource, 'rows', 'a flat snapshot whose bytes changed is not read');
      const q = next();
      assert.deepEqual(
        (await second.search('b', q, 10, { includeSuperseded: true })).map((s) => s.id),
        world.exact('b', q, 10, { includeSuperseded: true }),
      );
      await second.close();

      // A snapshot of a bank that was since deleted and created again under the same id.
      world.db.prepare('DELETE FROM banks WHERE id = ?').run('b');
      for (const f of [...world.facts.values()]) world.facts.delete(f.id);
      world.addBank('b', '2031-01-01T00:00:00.000Z');
      for (let i = 0; i < 50; i++) world.addFact('b', next());
      const third = new SqliteVectorIndex(world.connect(), options);
      const thirdStats = await third.warm('b');
      assert.equal(thirdStats?.graphSource, 'built');
      assert.equal(thirdStats?.flatSource, 'rows', 'nor one of a deleted bank of the same id');
      assert.equal(third.stats('b')?.vectors, 50);
      await third.close();
    } finally {
      world.close();
    }
  });
}

test('a snapshot read in the background answers from its file meanwhile: changes since, filters, and its checks', async () => {
  const world = new World();
  try {
    const next = vectorSource(14);
    fill(world, 'b', NATIVE_SCAN_MIN + 500, next);
    const snapshotDir = join(world.dir, 'snapshots');
    const first = new SqliteVectorIndex(world.db, { hnswThreshold: 1, snapshotDir });
    await first.warm('b');
    await first.close();
    const flatFile = join(snapshotDir, readdirSync(snapshotDir).find((f) => f.endsWith('.flat'))!);
    const good = readFileSync(flatFile);
    // Changes after the snapshot: inserts, deletes, a changed vector.
    const ids = [...world.facts.keys()];
    for (const id of ids.slice(0, 30)) world.deleteFact(id);
    for (let i = 0; i < 25; i++) world.addFact('b', next(), { kind: i % 2 ? 'world' : 'observation' });
    const target = next();
    world.setVector(ids[200], target);

    const options = { hnswThreshold: Infinity, snapshotDir, backgroundReadBytes: 0, maxOverfetch: 40 };
    const fresh = () => new SqliteVectorIndex(world.connect(), options);
    const filters: FactFilter[] = [
      {},
      { includeSuperseded: true },
      { kinds: ['observation'] },
      { kinds: ['experience', 'world'] },
      { tags: ['rare'] },
      { recordedBefore: new Date(Date.UTC(2024, 0, 1) + 700 * 60_000).toISOString() },
    ];
    for (const filter of filters) {
      const index = fresh();
      for (const q of [target, next()]) {
        const want = world.exact('b', q, 10, filter);
        assert.deepEqual(
          (await index.search('b', q, 10, filter)).map((s) => s.id),
          want,
          `filter ${JSON.stringify(filter)}`,
        );
      }
      if (!filter.tags) assert.equal(index.stats('b')?.reading, true, `answered while the file was being read: ${JSON.stringify(filter)}`);
      const stats = await index.warm('b');
      assert.deepEqual([stats?.reading, stats?.flatSource, stats?.vectors], [false, 'snapshot', world.facts.size]);
      assert.deepEqual(
        (await index.search('b', target, 10, filter)).map((s) => s.id),
        world.exact('b', target, 10, filter),
      );
      await index.close();
    }

    /** A fresh index answers right from the first search, having given the snapshot up for the rows. */
    const refused = async (why: string) => {
      const index = fresh();
      const q = next();
      assert.deepEqual(
        (await index.search('b', q, 10)).map((s) => s.id),
        world.exact('b', q, 10),
        why,
      );
      assert.deepEqual([index.stats('b')?.reading, index.stats('b')?.flatSource], [false, 'rows'], why);
      await index.close();
    };
    const damaged = Buffer.from(good);
    damaged[damaged.length - 7] ^= 0x20; // the last vector: not among the sampled ones
    writeFileSync(flatFile, damaged);
    await refused('a body that does not match its checksum');
    // A snapshot of another history, whole and with a right checksum: one of its vectors differs from the database's.
    writeFileSync(flatFile, good);
    const other = FlatFile.open(flatFile)!;
    const { header } = other;
    const flat = other.read()!;
    other.close();
    const sampled = Math.floor(flat.size / 32); // the second sampled slot (the first one's fact was deleted since)
    flat.data[sampled * DIM] += 0.5;
    writeFileSync(flatFile, encodeFlat(flat, { bankId: header.bankId, bankCreatedAt: header.bankCreatedAt, seq: header.seq }));
    await refused('a sampled vector differs from the stored one');
    // A database whose vectors changed without the change being logged (restored from elsewhere): the count differs.
    writeFileSync(flatFile, good);
    const rid = world.db.prepare('SELECT rid FROM facts WHERE id = ?').pluck().get(ids[300]) as number;
    world.db.prepare('DELETE FROM fact_vectors WHERE fact_rid = ?').run(rid);
    world.db.prepare('DELETE FROM vector_changes WHERE fact_rid = ? AND op = ?').run(rid, 'delete');
    world.facts.delete(ids[300]);
    await refused('more vectors than the database holds');

    // Closed, or the bank forgotten, while the file is being read.
    const closing = fresh();
    await closing.search('b', next(), 5);
    await closing.close();
    const forgetting = fresh();
    await forgetting.search('b', next(), 5);
    forgetting.forgetBank('b');
    assert.equal(forgetting.stats('b'), null);
    await forgetting.close();
  } finally {
    world.close();
  }
});

test('flat snapshots of the first format (SHA-256) are still read, graphs of earlier formats built again; a torn or changed one is not', async () => {
  const world = new World();
  try {
    const next = vectorSource(10);
    fill(world, 'b', 400, next);
    const snapshotDir = join(world.dir, 'snapshots');
    const options = { hnswThreshold: 1, efSearch: 400, snapshotDir };
    const first = new SqliteVectorIndex(world.db, options);
    await first.warm('b');
    await first.close();
    const named = (end: string) => join(snapshotDir, readdirSync(snapshotDir).find((f) => f.endsWith(end))!);
    const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
    // The flat file and the meta file rewritten as the previous version wrote them.
    const flatFile = named('.flat');
    const current = readFileSync(flatFile);
    const nl = current.indexOf(10);
    const { crc32: _crc, ...header } = JSON.parse(current.subarray(0, nl).toString('utf8'));
    const oldLine = JSON.stringify({ ...header, format: 1, sha256: sha256(current.subarray(nl + 1)) });
    const start = Math.ceil((Buffer.byteLength(oldLine) + 1) / 8) * 8;
    const oldFlat = Buffer.concat([
      Buffer.from(`${oldLine + ' '.repeat(start - 1 - Buffer.byteLength(oldLine))}\n`),
      current.subarray(nl + 1),
    ]);
    writeFileSync(flatFile, oldFlat);
    const metaFile = named('.json');
    const { crc32: _metaCrc, ...meta } = JSON.parse(readFileSync(metaFile, 'utf8'));
    writeFileSync(metaFile, JSON.stringify({ ...meta, format: 1, sha256: sha256(readFileSync(named('.hnsw'))) }));

    const q = next();
    const want = world.exact('b', q, 10, { includeSuperseded: true });
    let graphSource = 'built'; // a graph of an earlier format (it held copies as nodes); then the one built instead
    const reopen = async (expect: 'snapshot' | 'rows', why: string) => {
      const index = new SqliteVectorIndex(world.connect(), options);
      const stats = await index.warm('b');
      assert.equal(stats?.flatSource, expect, why);
      assert.equal(stats?.graphSource, graphSource);
      graphSource = 'snapshot';
      assert.deepEqual(
        (await index.search('b', q, 10, { includeSuperseded: true })).map((s) => s.id),
        want,
      );
      await index.close();
    };
    await reopen('snapshot', 'a flat snapshot of the previous format is read');
    const changed = Buffer.from(oldFlat);
    changed[changed.length - 5] ^= 1;
    writeFileSync(flatFile, changed);
    await reopen('rows', 'nor one whose body changed');
    writeFileSync(flatFile, oldFlat.subarray(0, oldFlat.length - 400));
    await reopen('rows', 'nor a torn one');
    writeFileSync(flatFile, current.subarray(0, current.length - 1));
    await reopen('rows', 'nor a torn one of the current format');
  } finally {
    world.close();
  }
});

test('forgetBank drops the change log and the snapshot of the bank', async () => {
  const world = new World();
  try {
    const next = vectorSource(8);
    fill(world, 'a', 100, next);
    fill(world, 'b', 100, next);
    const snapshotDir = join(world.dir, 'snapshots');
    const index = new SqliteVectorIndex(world.db, { hnswThreshold: 1, snapshotDir });
    await index.warm('a');
    await index.warm('b');
    assert.equal(readdirSync(snapshotDir).filter((f) => f.endsWith('.json')).length, 2);
    world.db.prepare('DELETE FROM banks WHERE id = ?').run('b');
    index.forgetBank('b');
    const changes = (bank: string) =>
      (world.db.prepare('SELECT count(*) AS n FROM vector_changes WHERE bank_id = ?').get(bank) as { n: number }).n;
    assert.equal(changes('b'), 0);
    assert.equal(changes('a'), 100);
    assert.equal(readdirSync(snapshotDir).filter((f) => f.endsWith('.json')).length, 1);
    assert.equal(readdirSync(snapshotDir).filter((f) => f.endsWith('.hnsw')).length, 1);
    assert.equal(index.stats('b'), null);
    assert.deepEqual(await index.search('b', next(), 5), []);
    assert.equal((await index.search('a', next(), 5)).length, 5);
    assert.ok(existsSync(snapshotDir));
    await index.close();
  } finally {
    world.close();
  }
});

test('closing the index while a graph is being built stops the build without taking the process down', async () => {
  const world = new World();
  try {
    fill(world, 'b', 20_000, vectorSource(11));
    for (let round = 0; round < 3; round++) {
      const index = new SqliteVectorIndex(world.connect(), { hnswThreshold: 1 });
      const q = vectorSource(12 + round)();
      await index.search('b', q, 5); // answered exactly; starts the graph build in the background
      await index.close(); // mid-build: the worker must stop between points, not be killed inside hnswlib
    }
    // Still alive, and a fresh index still builds and answers.
    const index = new SqliteVectorIndex(world.connect(), { hnswThreshold: 1 });
    assert.equal((await index.warm('b'))?.mode, 'hnsw');
    await index.close();
  } finally {
    world.close();
  }
});
