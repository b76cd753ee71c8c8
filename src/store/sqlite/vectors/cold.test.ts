// Proves the search of a flat snapshot file (cold.ts) against the same store held in memory (FlatVectors.best): the
// same rids and scores, in the same order (ties by rid), for every kinds filter, record-time bound and size, read in
// many parts (each ranked natively, some read again when a tie at the cut could hide a vector), also after changes
// logged since the snapshot; and a damaged body is refused rather than answered from.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { random } from '../../../../benchmarks/random.ts';
import { ColdFlat, SnapshotDamaged } from './cold.ts';
import { encodeVector, FlatVectors, kindMask } from './flat.ts';
import { encodeFlat, FlatFile } from './flat-file.ts';

const DIM = 16;
const dir = mkdtempSync(join(tmpdir(), 'cairn-cold-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** n vectors: a fifth are copies of a few (ties at every cut), kinds mixed, record times one a minute, some unknown. */
function store(n: number, seed: number): { flat: FlatVectors; next: () => Float32Array } {
  const rnd = random(seed);
  const next = () => Float32Array.from({ length: DIM }, () => rnd() * 2 - 1);
  const copies = [next(), next(), next()];
  const flat = new FlatVectors(DIM, n);
  for (let i = 0; i < n; i++) {
    const v = i % 5 === 0 ? copies[i % 3] : next();
    flat.put(3 * i + 7, encodeVector(v), i % 4, i % 97 === 0 ? NaN : 1_000_000 + i * 60_000);
  }
  return { flat, next };
}

function snapshot(flat: FlatVectors, name: string): string {
  const path = join(dir, name);
  writeFileSync(path, encodeFlat(flat, { bankId: 'b', bankCreatedAt: '2024-01-01T00:00:00.000Z', seq: 5 }));
  return path;
}

const masks = [null, kindMask(['world']), kindMask(['experience', 'observation'])];

function assertSame(cold: ColdFlat, flat: FlatVectors, queries: Float32Array[], why: string): void {
  assert.equal(cold.size, flat.size, why);
  for (const mask of masks) {
    assert.equal(cold.count(mask), flat.count(mask), why);
    for (const before of [Infinity, 1_000_000 + 2500 * 60_000]) {
      assert.equal(cold.countBefore(mask, before), flat.countBefore(mask, before), why);
      for (const q of queries) {
        for (const m of [1, 10, 150, 700])
          assert.deepEqual(
            cold.best(q, mask, m, before),
            flat.best(q, mask, m, before),
            `${why}: m ${m} mask ${mask} before ${before} q ${queries.indexOf(q)}`,
          );
      }
    }
  }
}

test('the file searched in parts answers as the store in memory, before and after changes logged since', () => {
  const { flat, next } = store(5000, 1);
  const path = snapshot(flat, 'parts.flat');
  for (const perRead of [1100, 97, 5000]) {
    const file = FlatFile.open(path)!;
    try {
      const cold = new ColdFlat(file, perRead);
      const queries = [next(), next(), flat.vector(3 * 5 + 7)!]; // the last: a vector with hundreds of copies
      assertSame(cold, flat, queries, `${perRead} a read`);
    } finally {
      file.close();
    }
  }

  // Changes after the snapshot: new vectors, changed ones (one to another kind), deleted ones, one put and deleted.
  const file = FlatFile.open(path)!;
  try {
    const cold = new ColdFlat(file, 1100);
    const changes = new Map<number, { bytes: Buffer | null; kind: number; time: number }>();
    const change = (rid: number, v: Float32Array | null, kind = 0, time = 2_000_000_000): void => {
      changes.set(rid, { bytes: v && Buffer.from(encodeVector(v)), kind, time });
      if (v) flat.put(rid, encodeVector(v), kind, time);
      else flat.remove(rid);
    };
    for (let i = 0; i < 40; i++) change(100_000 + i, next(), i % 3);
    for (let i = 0; i < 30; i++) change(3 * (i * 37) + 7, next(), 1, 1_000_000 + i * 37 * 60_000);
    for (let i = 0; i < 25; i++) change(3 * (i * 53 + 11) + 7, null);
    change(100_001, null);
    assert.equal(cold.apply(changes, 9), true);
    assert.equal(cold.seq, 9);
    assertSame(cold, flat, [next(), next()], 'after changes');
    assert.equal(cold.apply(new Map([[1, { bytes: Buffer.alloc(8), kind: 0, time: 0 }]]), 10), false, 'a vector of another size');
  } finally {
    file.close();
  }
});

test('a damaged body is refused by the first search, whichever section changed', () => {
  const { flat, next } = store(3000, 2);
  const path = snapshot(flat, 'damaged.flat');
  const good = readFileSync(path);
  const body = FlatFile.open(path)!;
  const at = body.sections;
  body.close();
  for (const [where, offset] of [
    ['rids', at.rids + 40],
    ['times', at.times + 8],
    ['vectors', good.length - 3],
  ] as const) {
    const bytes = Buffer.from(good);
    bytes[offset] ^= 0x10;
    writeFileSync(path, bytes);
    const file = FlatFile.open(path)!;
    try {
      const cold = new ColdFlat(file, 1100);
      assert.throws(() => cold.best(next(), null, 10), SnapshotDamaged, where);
    } finally {
      file.close();
    }
  }
});
