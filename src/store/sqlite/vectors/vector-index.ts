// The embedded store's vector index: per bank, an in-memory k-NN index over fact_vectors, caught up before every
// search from vector_changes (so writes by other processes show up). Small banks are searched exactly (flat.ts);
// large ones through an HNSW graph (hnsw.ts) built off the main thread and snapshotted beside the database
// (snapshot.ts) for a fast start.
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeFile } from 'node:fs/promises';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import { dot, TopK } from '../../../core/index.ts';
import type { FactFilter, Scored, VectorIndex } from '../../ports.ts';
import { vectorCount } from '../counts.ts';
import type { Db } from '../database.ts';
import { factFilterSql } from '../filters.ts';
import { NOT_PURGING } from '../rows.ts';
import { prepared, type Statement } from '../statements.ts';
import { ColdFlat, type LoggedChange, SnapshotDamaged } from './cold.ts';
import { encodeVector, FlatVectors, kindCode, kindMask, recordTime } from './flat.ts';
import { encodeFlat, FlatFile } from './flat-file.ts';
import { BUILD_WORKER, HNSW_ADDON, HnswGraph } from './hnsw.ts';
import { bankKey, readSnapshotFile, type SnapshotMeta, snapshotFile, snapshotFileMatches, writeSnapshotFile } from './snapshot.ts';

export interface SqliteVectorIndexOptions {
  /** Directory for HNSW snapshots (a meta file and an index file per bank). Without it nothing is written to disk. */
  snapshotDir?: string;
  /** Banks with at least this many vectors get an HNSW graph, and a search uses it when the facts of the kinds it
   * asks for are at least this many too (fewer are scanned exactly). Default: the size where an exact scan costs
   * about 2 ms on one core (n × dim = 2M: 20k vectors at 100-d, 5.2k at 384-d). Infinity: always exact. */
  hnswThreshold?: number;
  /** HNSW graph degree (default 16). */
  m?: number;
  /** HNSW build-time candidate list (default 100). */
  efConstruction?: number;
  /** HNSW search-time candidate list; a search over-fetching more candidates uses that many (default 100). */
  efSearch?: number;
  /** Write a fresh snapshot once this many vector changes reached the graph since the last one (default 2000). */
  snapshotEvery?: number;
  /** Over-fetch at most this many candidates before filtering in SQL first (default 4096). */
  maxOverfetch?: number;
  /** A catch-up bringing more new vectors than this replaces the HNSW graph in the background (default 1000). */
  maxGraphCatchUp?: number;
  /** A flat snapshot with a body of at least this many bytes is read into memory on a worker thread, searches
   * meanwhile scanning the file (cold.ts); a smaller one is read at once (default 16 MB: 40k vectors of 100-d). */
  backgroundReadBytes?: number;
}

export interface VectorBankStats {
  vectors: number;
  dim: number;
  /** The last vector_changes seq the in-memory index reflects. */
  seq: number;
  mode: 'exact' | 'hnsw';
  /** Live vectors in the HNSW graph (equal to `vectors` when it is current), null without a graph. */
  graphVectors: number | null;
  graphSource: 'built' | 'snapshot' | null;
  /** Where the flat store came from when the bank was loaded: its snapshot file (caught up), or every vector row. */
  flatSource: 'snapshot' | 'rows';
  /** The snapshot file is still being read into memory (searches meanwhile scan the file). */
  reading: boolean;
  graphError: string | null;
}

type Ranker = (fetch: number) => { rids: number[]; scores: number[] };
/** An HNSW graph read from its snapshot, reflecting the changes up to seq. */
type SnapshotGraph = { graph: HnswGraph; seq: number };

/** The best `fetch` vectors of the kinds in the mask recorded by `before`, exactly, from a scan of the flat store. */
function exactRanker(flat: FlatVectors, query: Float32Array, mask: number | null, before: number): Ranker {
  return (fetch) => flat.best(query, mask, fetch, before);
}

/** The same from the snapshot file: each scan reads the whole file, so it ranks twice as many as asked for and
 * answers a later ask from that while it fits (exact rankings: the first f of the best 2f are the best f). */
function coldRanker(flat: ColdFlat, query: Float32Array, mask: number | null, before: number): Ranker {
  let ranked: { rids: number[]; scores: number[]; asked: number } | null = null;
  return (fetch) => {
    if (!ranked || (fetch > ranked.asked && ranked.rids.length === ranked.asked))
      ranked = { ...flat.best(query, mask, fetch * 2, before), asked: fetch * 2 };
    return { rids: ranked.rids.slice(0, fetch), scores: ranked.scores.slice(0, fetch) };
  };
}

/** The best `fetch` vectors of the bank, approximately, from the HNSW graph (and those it does not hold yet, recorded
 * by `before`). */
function graphRanker(graph: HnswGraph, flat: FlatVectors, query: Float32Array, before: number): Ranker {
  const point = Array.from(query);
  return (fetch) => graph.search(point, fetch, flat, before);
}

/** Pending vectors added to a bank's graph at once, on the thread that serves requests, or per turn of its event loop
 * when more are pending (one insertion costs up to a millisecond). */
const GRAPH_SLICE = 32;

/** Pending vectors close() still adds to a graph to write its snapshot (up to a millisecond each). */
const CLOSE_CATCH_UP = 256;

/** About how many vectors a native exact scan ranks in the time a search of the graph scores one pending vector. */
const PENDING_COST = 16;

interface BankState {
  readonly id: string;
  readonly createdAt: string;
  readonly flat: FlatVectors;
  readonly flatSource: 'snapshot' | 'rows';
  seq: number;
  graph: HnswGraph | null;
  graphTask: Promise<void> | null;
  /** Adding the graph's pending vectors a slice per turn (see GRAPH_SLICE). */
  draining: Promise<void> | null;
  graphError: string | null;
  /** Set while the graph is being written to a file: it must not change meanwhile. */
  saving: Promise<void> | null;
  changesSinceSnapshot: number;
  worker: Worker | null;
  /** Asks the running build worker to stop between two points (it then exits by itself). */
  stopBuild: (() => void) | null;
  /** Someone awaits the graph: its build worker keeps the process alive. */
  awaited: boolean;
  dropped: boolean;
  /** The graph snapshot read since the bank was opened (its flat store was read in the background meanwhile). */
  snapshotGraph: Promise<SnapshotGraph | null> | null;
  /** The last count of vectors under a recordedBefore bound (a retain asks with the same bound for each fact). */
  counted: { mask: number | null; before: number; seq: number; n: number } | null;
}

/** A bank searched from its flat snapshot file while the file is read into memory on a worker thread. */
interface ColdBank {
  readonly id: string;
  readonly createdAt: string;
  readonly file: FlatFile;
  readonly flat: ColdFlat;
  /** The file's sampled vectors equal the stored ones (checked before the first search; its size on every one). */
  sampled: boolean;
  /** Settles once the bank is held in memory whole (in `banks`), or the snapshot was given up. */
  loaded: Promise<void>;
  /** Its graph snapshot, read meanwhile when the bank is large enough to have one. */
  graph: Promise<SnapshotGraph | null> | null;
  stopRead: () => void;
  dropped: boolean;
}

const isCold = (bank: BankState | ColdBank): bank is ColdBank => bank.flat instanceof ColdFlat;

interface CheckedRow {
  rid: number;
  id: string;
}

export class SqliteVectorIndex implements VectorIndex {
  private readonly banks = new Map<string, BankState>();
  private readonly colds = new Map<string, ColdBank>();
  private readonly filterStatements = new Map<string, { check: Statement; all: Statement }>();
  private readonly tasks = new Set<Promise<unknown>>();
  private readonly m: number;
  private readonly efConstruction: number;
  private readonly efSearch: number;
  private readonly snapshotEvery: number;
  private readonly maxOverfetch: number;
  private readonly maxGraphCatchUp: number;
  private readonly backgroundReadBytes: number;
  private closed = false;

  constructor(
    private readonly db: Db,
    private readonly options: SqliteVectorIndexOptions = {},
  ) {
    this.m = options.m ?? 16;
    this.efConstruction = options.efConstruction ?? 100;
    this.efSearch = options.efSearch ?? 100;
    this.snapshotEvery = options.snapshotEvery ?? 2000;
    this.maxOverfetch = options.maxOverfetch ?? 4096;
    this.maxGraphCatchUp = options.maxGraphCatchUp ?? 1000;
    this.backgroundReadBytes = options.backgroundReadBytes ?? 16 << 20;
    if (options.snapshotDir) mkdirSync(options.snapshotDir, { recursive: true });
  }

  async search(bankId: string, vector: Float32Array, k: number, filter: FactFilter = {}): Promise<Scored[]> {
    return (await this.searchMany(bankId, [vector], k, filter))[0];
  }

  /** One search per vector, on the bank as one catch-up left it, the candidates of every first ranking checked
   * against the filter in one statement (a retain asks this for every fact it writes). */
  async searchMany(bankId: string, vectors: Float32Array[], k: number, filter: FactFilter = {}, minScore = -Infinity): Promise<Scored[][]> {
    for (;;) {
      const bank = await this.current(bankId, true);
      if (!bank || bank.flat.size === 0 || !(k >= 1)) return vectors.map(() => []);
      for (const vector of vectors)
        if (vector.length !== bank.flat.dim) {
          throw new Error(`query vector has ${vector.length} dimensions but bank "${bankId}" holds ${bank.flat.dim}-dimensional vectors`);
        }
      try {
        return await this.nearest(bank, vectors, Math.floor(k), filter, minScore);
      } catch (err) {
        if (!(err instanceof SnapshotDamaged) || !isCold(bank)) throw err;
        this.giveUpCold(bank); // and search what the rows hold
      }
    }
  }

  /** Loads and catches up the bank's index and waits for its HNSW graph (if it is large enough to get one). */
  async warm(bankId: string): Promise<VectorBankStats | null> {
    const bank = await this.current(bankId);
    if (bank?.graphTask) {
      bank.awaited = true;
      bank.worker?.ref();
      await bank.graphTask;
    }
    while (bank?.draining) await bank.draining;
    return this.stats(bankId);
  }

  stats(bankId: string): VectorBankStats | null {
    const cold = this.colds.get(bankId);
    if (cold) {
      const { flat } = cold;
      return {
        vectors: flat.size,
        dim: flat.dim,
        seq: flat.seq,
        mode: 'exact',
        graphVectors: null,
        graphSource: null,
        flatSource: 'snapshot',
        reading: true,
        graphError: null,
      };
    }
    const bank = this.banks.get(bankId);
    if (!bank) return null;
    return {
      vectors: bank.flat.size,
      dim: bank.flat.dim,
      seq: bank.seq,
      mode: bank.graph ? 'hnsw' : 'exact',
      graphVectors: bank.graph?.size ?? null,
      graphSource: bank.graph?.source ?? null,
      flatSource: bank.flatSource,
      reading: false,
      graphError: bank.graphError,
    };
  }

  /** Drops the bank's in-memory index, its change log and its snapshot (call after deleting the bank). */
  forgetBank(bankId: string): void {
    const bank = this.banks.get(bankId);
    if (bank) this.drop(bank);
    const cold = this.colds.get(bankId);
    if (cold) this.dropCold(cold);
    this.sql('DELETE FROM vector_changes WHERE bank_id = ?').run(bankId);
    const dir = this.options.snapshotDir;
    if (!dir) return;
    const key = bankKey(bankId);
    try {
      for (const name of readdirSync(dir))
        if (name === `${key}.json` || name === `${key}.flat` || name.startsWith(`${key}-`)) rmSync(join(dir, name), { force: true });
    } catch {
      // no snapshot directory: nothing to remove
    }
  }

  /** Stops background builds and writes a last snapshot of every graph that changed since its last one. */
  async close(): Promise<void> {
    this.closed = true;
    for (const bank of this.banks.values()) bank.stopBuild?.();
    for (const cold of this.colds.values()) this.dropCold(cold);
    await Promise.allSettled([...this.tasks]);
    if (!this.options.snapshotDir) return;
    for (const bank of this.banks.values()) {
      if (!bank.graph || bank.changesSinceSnapshot === 0 || bank.dropped) continue;
      if (bank.graph.pendingCount > CLOSE_CATCH_UP) {
        // A graph far behind (a long retain just ended) would hold the shutdown for seconds to catch up here: the next
        // start reconciles or builds one off its main thread instead. The flat store is saved either way.
        this.saveFlat(bank);
        continue;
      }
      this.upsertPending(bank, Infinity); // a snapshot holds every vector up to its seq
      await this.saveSnapshot(bank).catch(() => undefined);
    }
    await Promise.allSettled([...this.tasks]); // the flat snapshots those wrote
  }

  // ---- keeping each bank current

  /** The bank's index, caught up; with `cold`, one still searched from its snapshot file may be returned rather than
   * waited for. */
  private async current(bankId: string): Promise<BankState | null>;
  private async current(bankId: string, cold: true): Promise<BankState | ColdBank | null>;
  private async current(bankId: string, cold = false): Promise<BankState | ColdBank | null> {
    for (;;) {
      const row = this.sql('SELECT created_at FROM banks WHERE id = ?').get(bankId) as { created_at: string } | undefined;
      const reading = this.colds.get(bankId);
      if (reading) {
        if (reading.createdAt !== row?.created_at)
          this.dropCold(reading); // deleted, or deleted and created again
        else if (!cold) await reading.loaded;
        else if (this.coldCurrent(reading)) return reading;
        continue;
      }
      let bank = this.banks.get(bankId);
      if (bank && bank.createdAt !== row?.created_at) {
        this.drop(bank); // deleted, or deleted and created again
        bank = undefined;
      }
      if (!row) return null;
      if (!bank) {
        const loaded = this.load(bankId, row.created_at);
        if (!loaded) continue; // read from its snapshot in the background
        bank = loaded;
      } else {
        if (bank.saving) {
          await bank.saving;
          continue; // the world may have moved while waiting
        }
        if (!this.catchUp(bank)) bank = this.loadRows(bankId, row.created_at);
      }
      this.maintain(bank);
      return bank;
    }
  }

  /** Loads the bank: from its flat snapshot, caught up and checked, when a good one is on disk (a large one is read
   * in the background, null then: see `colds`), else from every vector row. */
  private load(bankId: string, createdAt: string): BankState | null {
    const old = this.banks.get(bankId);
    if (old) this.drop(old);
    const file = this.openFlat(bankId, createdAt);
    if (file && file.bodyBytes >= this.backgroundReadBytes && this.startCold(bankId, createdAt, file)) return null;
    if (file) {
      let flat: FlatVectors | null = null;
      try {
        flat = file.read();
      } catch {
        // unreadable: the rows are read instead
      } finally {
        file.close();
      }
      const bank = flat && this.newBank(bankId, createdAt, flat, file.header.seq, 'snapshot');
      if (bank && this.catchUp(bank) && this.flatMatches(bank)) {
        this.banks.set(bankId, bank);
        return bank;
      }
    }
    return this.loadRows(bankId, createdAt);
  }

  /** Reads every vector of the bank and the change seq they reflect, in one read transaction. */
  private loadRows(bankId: string, createdAt: string): BankState {
    const old = this.banks.get(bankId);
    if (old) this.drop(old);
    const read = this.db.transaction(() => {
      const seq = (this.sql('SELECT coalesce(max(seq), 0) AS s FROM vector_changes WHERE bank_id = ?').get(bankId) as { s: number }).s;
      const count = vectorCount(this.db, bankId);
      let flat: FlatVectors | null = null;
      const rows = this.sql(
        'SELECT v.fact_rid, v.vector, f.kind, f.created_at FROM fact_vectors v JOIN facts f ON f.rid = v.fact_rid WHERE v.bank_id = ?',
      )
        .raw()
        .iterate(bankId) as IterableIterator<[number, Buffer, string, string]>;
      for (const [rid, bytes, kind, createdAt] of rows) {
        flat ??= new FlatVectors(bytes.byteLength / 4, count);
        if (bytes.byteLength !== flat.dim * 4) {
          throw new Error(`bank "${bankId}" holds vectors of different dimensions (${flat.dim} and ${bytes.byteLength / 4})`);
        }
        flat.put(rid, bytes, kindCode(kind), recordTime(createdAt));
      }
      return { seq, flat: flat ?? new FlatVectors(0, 0) };
    });
    const { seq, flat } = read();
    const bank = this.newBank(bankId, createdAt, flat, seq, 'rows');
    this.banks.set(bankId, bank);
    return bank;
  }

  /** Starts searching the bank from its snapshot file while a worker thread reads the file; false when the file
   * cannot be read. Takes the file (closes it when done with it). */
  private startCold(bankId: string, createdAt: string, file: FlatFile): boolean {
    let flat: ColdFlat;
    try {
      flat = new ColdFlat(file);
    } catch {
      return false;
    }
    const read = file.readInBackground();
    // The graph snapshot is read meanwhile (on a thread of its own): it is adopted once the store is whole.
    const graph =
      flat.size >= this.threshold(flat.dim) ? this.track(this.loadSnapshot(bankId, createdAt, flat.dim).catch(() => null)) : null;
    const cold: ColdBank = {
      id: bankId,
      createdAt,
      file,
      flat,
      sampled: false,
      loaded: Promise.resolve(),
      graph,
      stopRead: read.stop,
      dropped: false,
    };
    cold.loaded = this.track(read.done.then((whole) => this.finishCold(cold, whole)));
    this.colds.set(bankId, cold);
    return true;
  }

  /** The worker's read is done: the bank held whole replaces the file, once caught up and checked (else its rows). */
  private finishCold(cold: ColdBank, whole: FlatVectors | null): void {
    cold.file.close();
    if (cold.dropped || this.closed) return;
    this.colds.delete(cold.id);
    let bank = whole && this.newBank(cold.id, cold.createdAt, whole, cold.file.header.seq, 'snapshot');
    if (bank && this.catchUp(bank) && this.flatMatches(bank)) this.banks.set(cold.id, bank);
    else bank = this.loadRows(cold.id, cold.createdAt);
    if (bank.flat.dim === cold.flat.dim) bank.snapshotGraph = cold.graph;
    this.maintain(bank); // its graph, without waiting for the next search
  }

  /** Catches a cold bank up and checks it against the database; false when it was given up (its rows read instead). */
  private coldCurrent(cold: ColdBank): boolean {
    const { flat } = cold;
    const changes = this.loggedChanges(cold.id, flat.seq);
    const sampled = () => (cold.sampled ? [] : flat.samples(32).map(({ slot, rid }) => ({ rid, bytes: flat.vectorBytes(slot) })));
    const good = (!changes || flat.apply(changes.latest, changes.seq)) && this.matchesStored(cold.id, flat.size, sampled());
    cold.sampled = good;
    if (!good) this.giveUpCold(cold);
    return good;
  }

  /** A snapshot found not to match the database or its checksum: it is not used again; the rows are read. */
  private giveUpCold(cold: ColdBank): void {
    this.dropCold(cold);
    this.loadRows(cold.id, cold.createdAt);
  }

  private dropCold(cold: ColdBank): void {
    cold.dropped = true;
    cold.stopRead(); // the file is closed once the worker has stopped
    if (this.colds.get(cold.id) === cold) this.colds.delete(cold.id);
  }

  private newBank(id: string, createdAt: string, flat: FlatVectors, seq: number, flatSource: BankState['flatSource']): BankState {
    return {
      id,
      createdAt,
      flat,
      flatSource,
      seq,
      graph: null,
      graphTask: null,
      draining: null,
      graphError: null,
      saving: null,
      changesSinceSnapshot: 0,
      worker: null,
      stopBuild: null,
      awaited: false,
      dropped: false,
      counted: null,
      snapshotGraph: null,
    };
  }

  /** The bank's flat snapshot file, open, when one of this bank (same id and creation) is on disk whole. */
  private openFlat(bankId: string, createdAt: string): FlatFile | null {
    const dir = this.options.snapshotDir;
    const file = dir ? FlatFile.open(join(dir, `${bankKey(bankId)}.flat`)) : null;
    if (file && (file.header.bankId !== bankId || file.header.bankCreatedAt !== createdAt)) {
      file.close();
      return null;
    }
    return file;
  }

  /** A sample of a loaded flat store agrees with the stored vectors, and its size with their count. */
  private flatMatches(bank: BankState): boolean {
    const { flat } = bank;
    const step = Math.max(1, Math.floor(flat.size / 32));
    const samples: Array<{ rid: number; bytes: Uint8Array }> = [];
    for (let s = 0; s < flat.size; s += step) samples.push({ rid: flat.rids[s], bytes: encodeVector(flat.vectorAt(s)) });
    return this.matchesStored(bank.id, flat.size, samples);
  }

  /** The bank stores `size` vectors, and the sampled rids' vectors are the bytes given. */
  private matchesStored(bankId: string, size: number, samples: Array<{ rid: number; bytes: Uint8Array }>): boolean {
    if (vectorCount(this.db, bankId) !== size) return false;
    const read = this.sql('SELECT vector FROM fact_vectors WHERE fact_rid = ? AND bank_id = ?').pluck();
    return samples.every(({ rid, bytes }) => {
      const stored = read.get(rid, bankId) as Buffer | undefined;
      return stored !== undefined && Buffer.compare(stored, bytes) === 0;
    });
  }

  /** Writes the bank's flat store as it is now (copied at once, at its change seq) to <key>.flat, in the background. */
  /** Whether the bank this state was loaded for still exists: another connection (the consolidation thread's, another
   * process's) may have deleted it, and a snapshot written now would outlive it on disk. */
  private stillHeld(bank: BankState): boolean {
    const row = this.sql(`SELECT created_at FROM banks WHERE id = ? AND ${NOT_PURGING}`).get(bank.id) as { created_at: string } | undefined;
    return row?.created_at === bank.createdAt;
  }

  private saveFlat(bank: BankState): void {
    const dir = this.options.snapshotDir;
    if (!dir || bank.dropped || !this.stillHeld(bank)) return;
    const content = encodeFlat(bank.flat, { bankId: bank.id, bankCreatedAt: bank.createdAt, seq: bank.seq });
    const tmp = join(dir, `${bankKey(bank.id)}-flat-${randomBytes(6).toString('hex')}.tmp`);
    this.track(
      writeFile(tmp, content)
        .then(() => {
          if (!bank.dropped) renameSync(tmp, join(dir, `${bankKey(bank.id)}.flat`));
        })
        .catch(() => undefined) // a snapshot is an optimisation: the rows remain the truth
        .finally(() => rmSync(tmp, { force: true })),
    );
  }

  /** Each vector changed in the bank after seq, as it is now (the last logged change of each), and the last seq;
   * null when nothing changed. */
  private loggedChanges(bankId: string, seq: number): { latest: Map<number, LoggedChange>; seq: number } | null {
    const rows = this.sql(
      `SELECT c.seq, c.fact_rid, v.vector, v.bank_id, f.kind, f.created_at FROM vector_changes c
         LEFT JOIN fact_vectors v ON v.fact_rid = c.fact_rid LEFT JOIN facts f ON f.rid = c.fact_rid
         WHERE c.bank_id = ? AND c.seq > ? ORDER BY c.seq`,
    )
      .raw()
      .all(bankId, seq) as Array<[number, number, Buffer | null, string | null, string | null, string | null]>;
    if (rows.length === 0) return null;
    const latest = new Map<number, LoggedChange>();
    for (const [, rid, vector, owner, kind, createdAt] of rows) {
      latest.set(rid, { bytes: vector && owner === bankId ? vector : null, kind: kindCode(kind), time: recordTime(createdAt) });
    }
    return { latest, seq: rows[rows.length - 1][0] };
  }

  /** Applies the changes logged after bank.seq. False when the bank must be reloaded (the dimension changed). */
  private catchUp(bank: BankState): boolean {
    const changes = this.loggedChanges(bank.id, bank.seq);
    if (!changes) return true;
    const { latest } = changes;
    const { flat } = bank;
    // Inserting into HNSW costs ~0.1-0.3 ms a vector on this thread: after a large batch (another process ingesting
    // in bulk) drop the graph and get a new one in the background (a newer snapshot, or a build) rather than block.
    let puts = 0;
    for (const { bytes } of latest.values()) if (bytes) puts++;
    if (bank.graph && puts > this.maxGraphCatchUp) bank.graph = null;
    for (const [rid, { bytes, kind, time }] of latest) {
      // The first vectors of an empty bank, or vectors of another size (after an embedder change): reload.
      if (bytes && (flat.dim === 0 || bytes.byteLength !== flat.dim * 4)) return false;
      if (bytes) flat.put(rid, bytes, kind, time);
      else flat.remove(rid);
    }
    bank.seq = changes.seq;
    const graph = bank.graph;
    if (graph) {
      for (const rid of latest.keys()) graph.markPending(rid, flat);
      bank.changesSinceSnapshot += latest.size;
      this.addPending(bank);
    }
    return true;
  }

  /** Adds the graph's pending vectors: a few at once, more a slice per turn of the event loop in the background. */
  private addPending(bank: BankState): void {
    const graph = bank.graph;
    if (!graph || graph.pendingCount === 0) return;
    if (graph.pendingCount <= GRAPH_SLICE && !bank.saving) {
      this.upsertPending(bank, GRAPH_SLICE);
      return;
    }
    if (bank.draining) return;
    bank.draining = this.track(
      (async () => {
        while (bank.graph === graph && graph.pendingCount > 0 && !bank.dropped && !this.closed) {
          await nextTurn();
          if (bank.saving) await bank.saving; // the graph must not change while it is written
          if (bank.graph === graph) this.upsertPending(bank, GRAPH_SLICE);
        }
      })().finally(() => {
        bank.draining = null;
      }),
    );
  }

  private upsertPending(bank: BankState, n: number): void {
    try {
      bank.graph?.upsertPending(bank.flat, n);
    } catch (err) {
      // The flat store stays right; this bank is searched exactly from now on.
      bank.graph = null;
      bank.graphError = `HNSW update failed: ${err instanceof Error ? err.message : String(err)}`;
    }
  }

  /** Starts getting a graph for a bank that has grown large enough; snapshots a graph that changed enough. */
  private maintain(bank: BankState): void {
    if (this.closed) return;
    if (
      !bank.graph &&
      !bank.graphTask &&
      bank.graphError === null &&
      bank.flat.size > 0 &&
      bank.flat.size >= this.threshold(bank.flat.dim)
    ) {
      bank.graphTask = this.track(
        this.obtainGraph(bank)
          .catch((err: unknown) => {
            bank.graphError = err instanceof Error ? err.message : String(err);
          })
          .finally(() => {
            bank.graphTask = null;
          }),
      );
    }
    if (
      this.options.snapshotDir &&
      bank.graph &&
      bank.graph.pendingCount === 0 &&
      !bank.saving &&
      bank.changesSinceSnapshot >= this.snapshotEvery
    ) {
      this.track(this.saveSnapshot(bank).catch(() => undefined));
    }
  }

  private track<T>(task: Promise<T>): Promise<T> {
    this.tasks.add(task);
    void task.finally(() => this.tasks.delete(task));
    return task;
  }

  private drop(bank: BankState): void {
    bank.dropped = true;
    bank.stopBuild?.();
    if (this.banks.get(bank.id) === bank) this.banks.delete(bank.id);
  }

  // ---- the HNSW graph: from a snapshot when a good one exists, else built in a worker

  private async obtainGraph(bank: BankState): Promise<void> {
    const reading = bank.snapshotGraph ?? this.loadSnapshot(bank.id, bank.createdAt, bank.flat.dim);
    bank.snapshotGraph = null;
    const snapshot = await reading.catch(() => null);
    if (snapshot && this.adopt(bank, snapshot.graph, snapshot.seq)) return;
    if (bank.dropped || this.closed) return;
    const built = await this.buildGraph(bank);
    if (!built || bank.dropped || this.closed) return;
    if (!this.adopt(bank, built.graph, built.seq)) throw new Error('a freshly built HNSW graph did not match the stored vectors');
  }

  /** Makes a loaded graph (reflecting changes up to seq) current and installs it; false if it cannot be trusted. */
  private adopt(bank: BankState, graph: HnswGraph, seq: number): boolean {
    if (bank.dropped || this.closed || this.banks.get(bank.id) !== bank) return false;
    if (!this.catchUp(bank)) {
      this.drop(bank);
      return false;
    }
    if (seq > bank.seq) return false; // written against another (newer) database
    const changed = this.sql('SELECT DISTINCT fact_rid FROM vector_changes WHERE bank_id = ? AND seq > ? AND seq <= ?')
      .pluck()
      .all(bank.id, seq, bank.seq) as number[];
    if (graph.source === 'snapshot' && changed.length > this.maxGraphCatchUp) return false; // a build is cheaper
    const changedSet = new Set(changed);
    const repaired = graph.reconcile(bank.flat);
    for (const rid of changed) graph.markPending(rid, bank.flat);
    // Labels that changed although no logged change explains it: the file did not come from this history.
    const unexplained = Math.max(0, repaired - changedSet.size);
    if (unexplained > Math.max(16, bank.flat.size * 0.01) || !graph.matches(bank.flat, 32)) return false;
    bank.graph = graph;
    bank.graphError = null;
    bank.changesSinceSnapshot = changed.length;
    this.addPending(bank);
    return true;
  }

  private async buildGraph(bank: BankState): Promise<{ graph: HnswGraph; seq: number } | null> {
    const { flat } = bank;
    const seq = bank.seq;
    const rids = flat.rids.slice(0, flat.size);
    const data = flat.data.slice(0, flat.size * flat.dim);
    const dir = this.options.snapshotDir ?? mkdtempSync(join(tmpdir(), 'cairn-hnsw-'));
    const key = bankKey(bank.id);
    const tmp = join(dir, `${key}-${seq}-${randomBytes(6).toString('hex')}.hnsw.tmp`);
    try {
      const stop = new Int32Array(new SharedArrayBuffer(4));
      const worker = new Worker(BUILD_WORKER, {
        execArgv: [],
        workerData: {
          addon: HNSW_ADDON,
          dim: flat.dim,
          m: this.m,
          efConstruction: this.efConstruction,
          file: tmp,
          rids: rids.buffer,
          data: data.buffer,
          stop: stop.buffer,
        },
        transferList: [rids.buffer, data.buffer],
      });
      bank.worker = worker;
      bank.stopBuild = () => Atomics.store(stop, 0, 1);
      if (bank.dropped || this.closed) bank.stopBuild();
      if (!bank.awaited) worker.unref(); // a background build must not keep a finished process alive
      const copies = await new Promise<Float64Array | null>((resolve, reject) => {
        worker.once('message', (m: { state: string; copies?: ArrayBuffer }) =>
          resolve(m.state === 'built' && m.copies ? new Float64Array(m.copies) : null),
        );
        worker.once('error', reject);
        worker.once('exit', () => resolve(null));
      }).finally(() => {
        bank.worker = null;
        bank.stopBuild = null;
      });
      if (!copies || bank.dropped || this.closed) return null;
      const graph = await this.readGraph(tmp, flat.dim, 'built', copies);
      if (this.options.snapshotDir) {
        await this.commitSnapshot(bank, tmp, seq, copies);
        this.saveFlat(bank);
      }
      return { graph, seq };
    } finally {
      rmSync(tmp, { force: true });
      if (!this.options.snapshotDir) rmSync(dir, { recursive: true, force: true });
    }
  }

  private async readGraph(file: string, dim: number, source: 'built' | 'snapshot', copies?: Float64Array): Promise<HnswGraph> {
    return HnswGraph.read(file, dim, this.efSearch, source, copies);
  }

  private async loadSnapshot(bankId: string, createdAt: string, dim: number): Promise<SnapshotGraph | null> {
    const dir = this.options.snapshotDir;
    if (!dir) return null;
    const meta = JSON.parse(readFileSync(join(dir, `${bankKey(bankId)}.json`), 'utf8')) as SnapshotMeta;
    if (meta.format !== 3 || meta.bankId !== bankId || meta.bankCreatedAt !== createdAt || meta.dim !== dim) return null;
    if (!(await snapshotFileMatches(dir, meta))) return null;
    const copyBytes = meta.copies ? await readSnapshotFile(dir, meta.copies) : null;
    if (meta.copies && !copyBytes) return null;
    // Copied into a buffer of its own: a Float64Array needs its offset aligned.
    const copies = copyBytes ? new Float64Array(new Uint8Array(copyBytes).buffer) : undefined;
    return { graph: await this.readGraph(join(dir, meta.file), meta.dim, 'snapshot', copies), seq: meta.seq };
  }

  /** Writes the bank's graph to a new snapshot. The graph is frozen only while hnswlib writes the file. */
  private async saveSnapshot(bank: BankState): Promise<void> {
    const dir = this.options.snapshotDir;
    const graph = bank.graph;
    if (!dir || !graph || bank.saving || !this.stillHeld(bank)) return;
    const seq = bank.seq;
    const tmp = join(dir, `${bankKey(bank.id)}-${seq}-${randomBytes(6).toString('hex')}.hnsw.tmp`);
    const copies = graph.copyPairs();
    const write = graph.index.writeIndex(tmp).then(() => undefined);
    bank.saving = write
      .finally(() => {
        bank.saving = null;
      })
      .catch(() => undefined);
    bank.changesSinceSnapshot = 0;
    this.saveFlat(bank);
    try {
      await write;
      if (!bank.dropped) await this.commitSnapshot(bank, tmp, seq, copies);
    } finally {
      rmSync(tmp, { force: true });
    }
  }

  /** Turns a written index file and its copies into the bank's snapshot: name, hash, point the meta file at them,
   * drop the old. */
  private async commitSnapshot(bank: BankState, tmp: string, seq: number, copies: Float64Array): Promise<void> {
    const dir = this.options.snapshotDir!;
    const key = bankKey(bank.id);
    const stem = `${key}-${seq}-${randomBytes(6).toString('hex')}`;
    const name = `${stem}.hnsw`;
    const copiesName = `${stem}.copies`;
    renameSync(tmp, join(dir, name));
    const copyBytes = new Uint8Array(copies.buffer, copies.byteOffset, copies.byteLength);
    const meta: SnapshotMeta = {
      format: 3,
      bankId: bank.id,
      bankCreatedAt: bank.createdAt,
      dim: bank.flat.dim,
      seq,
      ...(await snapshotFile(dir, name)),
      copies: copies.length > 0 ? await writeSnapshotFile(dir, copiesName, copyBytes) : null,
      m: this.m,
      efConstruction: this.efConstruction,
      writtenAt: new Date().toISOString(),
    };
    const metaTmp = join(dir, `${key}-meta-${randomBytes(6).toString('hex')}.tmp`);
    writeFileSync(metaTmp, JSON.stringify(meta));
    renameSync(metaTmp, join(dir, `${key}.json`));
    // Older index files of this bank (and leftovers of crashed writers) once no reader can still be opening them.
    const now = Date.now();
    for (const entry of readdirSync(dir)) {
      if (!entry.startsWith(`${key}-`) || entry === name || entry === copiesName) continue;
      const path = join(dir, entry);
      try {
        const isOld = now - statSync(path).mtimeMs > 60_000;
        if (isOld || (/\.(hnsw|copies)$/.test(entry) && Number(entry.split('-')[2]) < seq)) unlinkSync(path);
      } catch {
        // gone already
      }
    }
  }

  // ---- searching

  private async nearest(
    bank: BankState | ColdBank,
    queries: Float32Array[],
    k: number,
    filter: FactFilter,
    minScore = -Infinity,
  ): Promise<Scored[][]> {
    const { flat } = bank;
    const hot = isCold(bank) ? null : bank;
    const graph = hot?.graph ?? null;
    const mask = kindMask(filter.kinds);
    const before = filter.recordedBefore ? Date.parse(filter.recordedBefore) : Infinity;
    // vectors of the kinds (and time) asked for
    const pool =
      before === Infinity ? flat.count(mask) : isCold(bank) ? bank.flat.countBefore(mask, before) : this.countBefore(bank, mask, before);
    if (pool === 0) return queries.map(() => []);
    // Few enough of them (or no graph): scan them exactly. Else over-fetch from the graph, by their share at least.
    // A graph with many vectors still pending (a retain's catch-up) scores those one by one in JS, several times the
    // cost per vector of a native scan: scan instead while they are many.
    const useGraph = graph !== null && pool >= this.threshold(flat.dim) && graph.pendingBy(before) * PENDING_COST < pool;
    const rankerOf = (query: Float32Array): Ranker =>
      hot && graph !== null && useGraph
        ? graphRanker(graph, hot.flat, query, before)
        : isCold(bank)
          ? coldRanker(bank.flat, query, mask, before)
          : exactRanker(bank.flat, query, mask, before);
    const n = useGraph ? flat.size : pool;
    const statements = this.statements(filter);
    const where = factFilterSql(filter, 'f');
    // rid -> fact id if it passes the filter, null if not: one filter at one moment, so shared by the queries
    const verdict = new Map<number, string | null>();
    const check = (rids: number[]): void => {
      const unchecked = [...new Set(rids.filter((rid) => !verdict.has(rid)))];
      if (!unchecked.length) return;
      for (const rid of unchecked) verdict.set(rid, null);
      const rows = statements.check.all(JSON.stringify(unchecked), bank.id, ...where.params) as CheckedRow[];
      for (const row of rows) verdict.set(row.rid, row.id);
    };
    /** How many to rank first among `among` vectors: enough that the pool's share of them holds k with room. */
    const firstOf = (among: number): number => Math.min(among, Math.ceil((Math.max(2 * k, k + 16) * among) / pool));
    const firstFetch = firstOf(n);
    // Several queries scanned exactly (a retain linking an item's facts) are ranked together first: one matrix product.
    const batched =
      !useGraph && !isCold(bank) && queries.length > 1 ? await bank.flat.bestMany(queries, mask, firstFetch, before, minScore) : null;
    /** A ranking cut where scores fall below minScore, and whether it was (nothing further down can count). */
    const cut = (ranked: { rids: number[]; scores: number[] }): { rids: number[]; scores: number[]; cut: boolean } => {
      const end = ranked.scores.findIndex((score) => score < minScore);
      return end < 0 ? { ...ranked, cut: false } : { rids: ranked.rids.slice(0, end), scores: ranked.scores.slice(0, end), cut: true };
    };
    const searches = queries.map((query, i) => {
      const ranker = (fetch: number) => cut(rankerOf(query)(fetch));
      return { query, ranker, first: batched?.[i] ? cut(batched[i]) : ranker(firstFetch) };
    });
    check(searches.flatMap((s) => s.first.rids));
    // One query's answer: from its first ranking, fetching more while too few of the candidates pass the filter.
    const answer = async ({ query, ranker, first }: (typeof searches)[number]): Promise<Scored[]> => {
      let fetch = firstFetch;
      let rank = ranker;
      let fromGraph = useGraph;
      let limit = n;
      for (let ranked = first; ; ranked = rank(fetch)) {
        const { rids, scores } = ranked;
        if (ranked.cut && rids.length === 0) return [];
        check(rids);
        const out: Scored[] = [];
        for (let i = 0; i < rids.length && out.length < k; i++) {
          const id = verdict.get(rids[i]);
          if (id) out.push({ id, score: scores[i] });
        }
        if (out.length >= k || ranked.cut) return out;
        const passing = rids.length - rids.filter((rid) => verdict.get(rid) === null).length;
        const needed = passing > 0 ? Math.ceil((k * rids.length * 1.5) / passing) : fetch * 8;
        if (fromGraph && hot && (fetch >= limit || needed > this.maxOverfetch)) {
          // The graph's candidates are crowded by facts of other kinds or recorded later, or it found too few: above
          // all among copies of one sentence (a retain's own tie with the older ones: thousands of copies listed beside
          // one node, in rowid order). A scan of the vectors in memory skips other kinds and later facts by
          // itself, and misses none, before the filter reads any fact.
          fromGraph = false;
          limit = pool;
          fetch = firstOf(pool);
          rank = (f) => cut(exactRanker(hot.flat, query, mask, before)(f));
          continue;
        }
        // An exact ranking shorter than asked for holds every candidate (the rest were skipped by kind or record time).
        if (fetch >= limit || (!fromGraph && rids.length < fetch)) return out;
        if (needed > this.maxOverfetch) {
          const whole = isCold(bank) ? await this.current(bank.id) : bank; // it scores the facts passing the filter from memory
          return whole ? this.prefiltered(whole, query, k, statements.all, where.params).filter((h) => h.score >= minScore) : [];
        }
        fetch = Math.min(n, Math.max(fetch * 4, needed));
      }
    };
    const results: Scored[][] = [];
    for (const search of searches) results.push(await answer(search));
    return results;
  }

  /** The bank's vectors of the kinds in the mask recorded by `before`, counted once while the bank does not change. */
  private countBefore(bank: BankState, mask: number | null, before: number): number {
    const c = bank.counted;
    if (c && c.mask === mask && c.before === before && c.seq === bank.seq) return c.n;
    const n = bank.flat.countBefore(mask, before);
    bank.counted = { mask, before, seq: bank.seq, n };
    return n;
  }

  /** Banks (or kinds of facts in them) with at least this many vectors are searched through the graph. */
  private threshold(dim: number): number {
    return this.options.hnswThreshold ?? Math.ceil(2_000_000 / Math.max(1, dim));
  }

  /** For selective filters: every fact passing the filter, scored exactly (ties by rowid, as in the scan). */
  private prefiltered(bank: BankState, query: Float32Array, k: number, all: Statement, params: unknown[]): Scored[] {
    const rows = all.all(bank.id, ...params) as Array<[number, string]>;
    const { flat } = bank;
    const ids = new Map<number, string>();
    const top = new TopK(k);
    for (const [rid, id] of rows) {
      const slot = flat.slots.get(rid);
      if (slot === undefined) continue;
      top.push(dot(flat.data, slot * flat.dim, query, flat.dim), rid);
      ids.set(rid, id);
    }
    const { positions, scores } = top.sorted();
    return positions.map((rid, j) => ({ id: ids.get(rid)!, score: scores[j] }));
  }

  /** A prepared statement, prepared once. */
  private sql(text: string): Statement {
    return prepared(this.db, text);
  }

  private statements(filter: FactFilter) {
    const where = factFilterSql(filter, 'f');
    let cached = this.filterStatements.get(where.sql);
    if (!cached) {
      if (this.filterStatements.size > 64) this.filterStatements.clear();
      cached = {
        // json_each first (CROSS JOIN): otherwise SQLite scans the bank's facts instead of looking up the candidates.
        check: this.db.prepare(
          `SELECT f.rid AS rid, f.id AS id FROM json_each(?) j CROSS JOIN facts f ON f.rid = j.value WHERE f.bank_id = ?${where.sql}`,
        ),
        all: this.db.prepare(`SELECT f.rid, f.id FROM facts f WHERE f.bank_id = ?${where.sql}`).raw(),
      };
      this.filterStatements.set(where.sql, cached);
    }
    return cached;
  }
}
