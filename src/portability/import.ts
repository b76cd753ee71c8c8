// Import of a bank archive (format.ts) into any store, through the store port: the bank with its settings, then
// documents with their chunks (the first write carries the entities), facts in their original order (each run of
// one document's facts one atomic write), observations as consolidation results (their evidence and history once
// every fact is in), links last; threads with their messages, memory items and working memory through the thread
// port, tombstones as they were. Every record is checked field by field first (records.ts; a file is read through
// once before anything is written), and its times are stored in the canonical form. Ids, message numbers (seq),
// times and bridge state are kept, so recall answers with the same ids and a thread goes on where it was; only when
// the target store already uses some of the archive's message numbers (another bank's threads) are the messages
// renumbered, in order, and their memory items follow. Under another bank id than the archive's, the records get ids
// of their own (copy.ts), so a bank can be copied within the store that holds it. Vectors are taken from the archive
// when it was made with the importing embedder, else (or when absent) the texts are embedded again. A failed import
// removes the half-imported bank.
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import {
  CairnError,
  BANK_ID_RULE,
  isBankId,
  type Chunk,
  type DocumentRecord,
  type Entity,
  type Evidence,
  type Fact,
  type FactLink,
  type Observation,
  type ObservationRevision,
} from '../core/index.ts';
import type { Embedder } from '../embed/index.ts';
import {
  FORGOTTEN_TEXT,
  type BankStore,
  type ConsolidationQueue,
  type Forgetting,
  type MemoryWrites,
  type Tombstone,
  type VectorRecord,
  legacySession,
} from '../store/index.ts';
import type { StoredItem, StoredMessage, ThreadStore, Thread } from '../threads/index.ts';
import { copyRecord } from './copy.ts';
import { decodeVector, emptyCounts, parseHeader, parseRecord, type ExportCounts, type ExportHeader, type ExportRecord } from './format.ts';
import { ArchiveChecker, archiveError, bankSchema } from './records.ts';

export interface ImportOptions {
  /** Where the bank's threads and their memory go. */
  threads: ThreadStore;
  /** Import under another bank id (the archive's by default). */
  bankId?: string;
  /** Facts per write, and texts per embedding call (default 256). */
  batchSize?: number;
  /** Called after each record is read, with the archive's line number (for a progress bar). */
  onRecord?: (lineNumber: number) => void;
}

export interface ImportReport {
  bankId: string;
  counts: ExportCounts;
  /** Texts embedded again (the archive had no vectors, or vectors of another embedder). */
  reembedded: number;
  embedder: string;
}

const IMPORT_WORKER = 'cairn-import';

/** Lines of a file, or of any async source of lines. */
async function* linesOf(source: string | AsyncIterable<string>): AsyncGenerator<string> {
  if (typeof source !== 'string') {
    yield* source;
    return;
  }
  const rl = createInterface({ input: createReadStream(source, 'utf8'), crlfDelay: Infinity });
  try {
    yield* rl;
  } finally {
    rl.close();
  }
}

/** A chunk or fact of an archive written before sessions gets the session the store's own upgrade would give it. */
const withSession = (c: Chunk): Chunk => (c.session === undefined ? { ...c, session: legacySession(c.documentId) } : c);
const withSourceSession = (f: Fact): Fact =>
  f.source && f.source.session === undefined ? { ...f, source: { ...f.source, session: legacySession(f.source.documentId) } } : f;
/** A fact of an archive written before facts had a stance and a context gets them as the store's upgrade
 * (migration 011) would: its stance from its metadata, no context. */
function withStanceAndContext(f: Fact): Fact {
  if (f.stance !== undefined && f.context !== undefined) return f;
  const legacy = f.metadata.stance;
  const stance = f.stance ?? (f.kind !== 'experience' && (legacy === 'instruction' || legacy === 'preference') ? legacy : null);
  return { ...f, stance, context: f.context ?? null };
}

function rebank<T extends { bankId: string }>(x: T, bankId: string): T {
  return x.bankId === bankId ? x : { ...x, bankId };
}

class Importer {
  readonly counts = emptyCounts();
  reembedded = 0;
  private entities: Entity[] = [];
  private entitiesWritten = false;
  private readonly documents = new Map<string, DocumentRecord>();
  private lastDocument: DocumentRecord | null = null;
  private current: { document: DocumentRecord; chunks: Chunk[] } | null = null;
  private facts: Array<{ fact: Fact; vector: Float32Array | null }> = [];
  private observations: Array<{ observation: Observation; vector: Float32Array | null }> = [];
  private readonly evidence: Evidence[] = [];
  private readonly history: ObservationRevision[] = [];
  private readonly links: FactLink[] = [];
  private thread: Thread | null = null;
  private messages: StoredMessage[] = [];
  /** Set once a batch of messages had to be renumbered: from then on every message is, so each thread stays in order. */
  private renumber = false;
  /** New seq of each renumbered message, by thread and old seq (kept messages are not in it). */
  private readonly renumbered = new Map<string, Map<number, number>>();
  private items: StoredItem[] = [];
  private tombstones: Tombstone[] = [];
  private readonly useVectors: boolean;
  private readonly batch: number;

  constructor(
    private readonly store: MemoryWrites & ConsolidationQueue & Forgetting,
    private readonly threads: ThreadStore,
    private readonly embedder: Embedder,
    header: ExportHeader,
    private readonly bankId: string,
    batchSize: number,
    /** Whether the records go into a copy under another bank id (they get ids of their own: copy.ts). */
    private readonly copy: boolean,
  ) {
    this.useVectors = header.vectors && header.embedder === embedder.id;
    this.batch = batchSize;
  }

  async take(record: ExportRecord): Promise<void> {
    const r = this.copy ? copyRecord(record, this.bankId) : record;
    switch (r.type) {
      case 'entity':
        this.entities.push(rebank(r.entity, this.bankId));
        this.counts.entities++;
        return;
      case 'document':
        await this.flushDocument();
        this.current = { document: rebank(r.document, this.bankId), chunks: [] };
        this.counts.documents++;
        return;
      case 'chunk':
        if (!this.current || this.current.document.id !== r.chunk.documentId)
          throw new Error(`chunk ${r.chunk.id} comes outside its document`);
        this.current.chunks.push(rebank(withSession(r.chunk), this.bankId));
        this.counts.chunks++;
        return;
      case 'fact':
        await this.flushDocument();
        await this.flushObservations();
        if (this.facts.length && this.facts[0].fact.source?.documentId !== r.fact.source?.documentId) await this.flushFacts();
        this.facts.push({ fact: rebank(withStanceAndContext(withSourceSession(r.fact)), this.bankId), vector: this.vectorOf(r.vector) });
        this.counts.facts++;
        if (this.facts.length >= this.batch) await this.flushFacts();
        return;
      case 'observation':
        await this.flushDocument();
        await this.flushFacts();
        this.observations.push({
          observation: { ...rebank(withStanceAndContext(r.observation), this.bankId), kind: 'observation', proofCount: 0 },
          vector: this.vectorOf(r.vector),
        });
        this.evidence.push(...r.evidence);
        this.history.push(...r.history);
        this.counts.observations++;
        if (this.observations.length >= this.batch) await this.flushObservations();
        return;
      case 'link':
        this.links.push({ ...r.link, bankId: this.bankId });
        this.counts.links++;
        return;
      case 'thread':
        await this.flushMessages();
        this.thread = rebank(r.thread, this.bankId);
        await this.threads.saveThread(this.thread);
        this.counts.threads++;
        return;
      case 'message':
        if (this.thread?.id !== r.message.threadId) throw new Error(`message ${r.message.id} comes outside its thread`);
        this.messages.push(rebank(r.message, this.bankId));
        this.counts.messages++;
        if (this.messages.length >= this.batch) await this.flushMessages();
        return;
      case 'memory':
        await this.flushMessages();
        this.items.push(this.renumbered.size ? this.followSeqs(r.item) : r.item);
        this.counts.memoryItems++;
        if (this.items.length >= this.batch) await this.flushItems();
        return;
      case 'working-memory':
        await this.flushMessages();
        await this.flushItems();
        await this.threads.putWorkingMemory(rebank(r.workingMemory, this.bankId));
        this.counts.workingMemory++;
        return;
      case 'tombstone':
        this.tombstones.push(rebank(r.tombstone, this.bankId));
        this.counts.tombstones++;
        if (this.tombstones.length >= this.batch * 4) await this.flushTombstones();
        return;
      case 'end':
        return;
    }
  }

  private async flushMessages(): Promise<void> {
    if (!this.thread || this.messages.length === 0) return;
    const run = this.messages;
    this.messages = [];
    const seqs = await this.threads.restoreMessages(this.bankId, this.thread.id, run, this.renumber);
    if (!this.renumber && seqs.every((seq, i) => seq === run[i].seq)) return;
    this.renumber = true;
    let map = this.renumbered.get(this.thread.id);
    if (!map) this.renumbered.set(this.thread.id, (map = new Map()));
    for (const [i, m] of run.entries()) map.set(m.seq, seqs[i]);
  }

  /** The item with the message range it covers in the renumbered messages' new seqs. */
  private followSeqs(item: StoredItem): StoredItem {
    const map = item.threadId === null ? undefined : this.renumbered.get(item.threadId);
    if (!map) return item;
    const follow = (seq: number | null): number | null => (seq === null ? null : (map.get(seq) ?? seq));
    return { ...item, fromSeq: follow(item.fromSeq), toSeq: follow(item.toSeq) };
  }

  private async flushItems(): Promise<void> {
    if (this.items.length === 0) return;
    const run = this.items;
    this.items = [];
    await this.threads.restoreItems(this.bankId, run);
  }

  private async flushTombstones(): Promise<void> {
    if (this.tombstones.length === 0) return;
    const run = this.tombstones;
    this.tombstones = [];
    await this.store.restoreTombstones(run);
  }

  private vectorOf(text: string | undefined): Float32Array | null {
    if (!this.useVectors || !text) return null;
    this.counts.vectors++;
    return decodeVector(text);
  }

  /**
   * Vectors for the items. With the archive's vectors (same embedder), an item without one had none and keeps
   * none; otherwise every text is embedded now, except observations blanked by a deletion (they never have one).
   */
  private async vectors(items: Array<{ id: string; text: string; vector: Float32Array | null }>): Promise<VectorRecord[]> {
    const lacking = this.useVectors ? [] : items.filter((i) => i.text !== FORGOTTEN_TEXT);
    const embedded = new Map<string, Float32Array>();
    for (let i = 0; i < lacking.length; i += this.batch) {
      const part = lacking.slice(i, i + this.batch);
      const vs = await this.embedder.embed(part.map((p) => p.text));
      part.forEach((p, k) => embedded.set(p.id, vs[k]));
    }
    this.reembedded += lacking.length;
    return items.flatMap((i) => {
      const vector = i.vector ?? embedded.get(i.id);
      return vector ? [{ id: i.id, vector }] : [];
    });
  }

  /** Entities go with the first write (facts need them to exist). */
  private takeEntities(): Entity[] {
    if (this.entitiesWritten) return [];
    this.entitiesWritten = true;
    return this.entities;
  }

  private async flushDocument(): Promise<void> {
    if (!this.current) return;
    const { document, chunks } = this.current;
    this.current = null;
    this.documents.set(document.id, document);
    this.lastDocument = document;
    await this.store.writeItem({
      bankId: this.bankId,
      document,
      chunks,
      removeChunkIds: [],
      facts: [],
      entities: this.takeEntities(),
      links: [],
      vectors: [],
      embedder: this.embedder.id,
    });
  }

  private documentFor(fact: Fact): DocumentRecord {
    const doc = (fact.source && this.documents.get(fact.source.documentId)) ?? this.lastDocument;
    if (!doc) throw new Error(`fact ${fact.id} has no document to be written with (the archive has no documents)`);
    return doc;
  }

  private async flushFacts(): Promise<void> {
    if (this.facts.length === 0) return;
    const run = this.facts;
    this.facts = [];
    const vectors = await this.vectors(run.map((r) => ({ id: r.fact.id, text: r.fact.text, vector: r.vector })));
    await this.store.writeItem({
      bankId: this.bankId,
      document: this.documentFor(run[0].fact),
      chunks: [],
      removeChunkIds: [],
      facts: run.map((r) => r.fact),
      entities: this.takeEntities(),
      links: [],
      vectors,
      embedder: this.embedder.id,
    });
  }

  private async flushObservations(): Promise<void> {
    if (this.observations.length === 0) return;
    const run = this.observations;
    this.observations = [];
    const vectors = await this.vectors(run.map((r) => ({ id: r.observation.id, text: r.observation.text, vector: r.vector })));
    await this.store.applyObservations({
      bankId: this.bankId,
      observations: run.map((r) => r.observation),
      vectors,
      embedder: this.embedder.id,
      evidence: [],
      revisions: [],
      supersede: [],
      removeObservationIds: [],
      consolidatedFactIds: [],
      workerId: IMPORT_WORKER,
    });
  }

  /** Everything buffered: the last runs, then evidence and history, then links. */
  async finish(): Promise<void> {
    await this.flushMessages();
    await this.flushItems();
    await this.flushTombstones();
    await this.flushDocument();
    await this.flushFacts();
    await this.flushObservations();
    for (let i = 0; i < Math.max(this.evidence.length, this.history.length); i += this.batch * 4)
      await this.store.applyObservations({
        bankId: this.bankId,
        observations: [],
        vectors: [],
        embedder: this.embedder.id,
        evidence: this.evidence.slice(i, i + this.batch * 4),
        revisions: this.history.slice(i, i + this.batch * 4),
        supersede: [],
        removeObservationIds: [],
        consolidatedFactIds: [],
        workerId: IMPORT_WORKER,
      });
    if (this.links.length) {
      const document = this.lastDocument;
      if (!document) throw new Error('the archive has links but no documents to write them with');
      for (let i = 0; i < this.links.length; i += this.batch * 4)
        await this.store.writeItem({
          bankId: this.bankId,
          document,
          chunks: [],
          removeChunkIds: [],
          facts: [],
          entities: this.takeEntities(),
          links: this.links.slice(i, i + this.batch * 4),
          vectors: [],
          embedder: this.embedder.id,
        });
    }
  }
}

/** The header of an archive (its first non-blank line), its bank's fields checked and its times made canonical,
 * and the header's line number. */
async function readHeader(lines: AsyncIterator<string>): Promise<{ header: ExportHeader; lineNumber: number }> {
  let lineNumber = 1;
  let first = await lines.next();
  for (; !first.done && first.value.trim() === ''; lineNumber++) first = await lines.next();
  if (first.done) throw new Error('the export is empty');
  const header = parseHeader(first.value);
  const bank = bankSchema.safeParse(header.bank);
  if (!bank.success) throw archiveError(lineNumber, 'header', bank.error);
  return { header: { ...header, bank: { ...header.bank, ...bank.data } as ExportHeader['bank'] }, lineNumber };
}

/** Reads the whole archive and checks every record (fields, references, counts) without writing anything. */
export async function checkArchive(source: string | AsyncIterable<string>): Promise<void> {
  const lines = linesOf(source)[Symbol.asyncIterator]();
  let { lineNumber } = await readHeader(lines);
  const checker = new ArchiveChecker();
  for (let next = await lines.next(); !next.done; next = await lines.next()) {
    lineNumber++;
    if (next.value.trim() !== '') checker.check(parseRecord(next.value, lineNumber), lineNumber);
  }
  checker.finish();
}

/**
 * Reads an archive (a file path, or its lines) into the store. The target bank must not exist yet. Under the
 * archive's own bank id the records keep their ids; under another one (`bankId`) every record gets a new id
 * (copiedId) and every reference follows, so a bank can be copied within the store that holds it.
 */
export async function importBank(
  store: BankStore & MemoryWrites & ConsolidationQueue & Forgetting,
  embedder: Embedder,
  source: string | AsyncIterable<string>,
  options: ImportOptions,
): Promise<ImportReport> {
  // A file is read twice: first every record is checked, so a broken archive is refused before anything is written.
  if (typeof source === 'string') await checkArchive(source);
  const lines = linesOf(source)[Symbol.asyncIterator]();
  const { header, lineNumber: headerLine } = await readHeader(lines);
  const bankId = options.bankId ?? header.bank.id;
  // An archive of a bank made under an older, looser rule imports under another id.
  if (options.bankId === undefined && !isBankId(bankId))
    throw new CairnError(
      'bad_request',
      `the archive's bank id '${bankId}' is not allowed: ${BANK_ID_RULE}; import it under another id (--bank)`,
    );
  if (await store.getBank(bankId)) throw new CairnError('conflict', `bank '${bankId}' already exists; import into a new bank id (--bank)`);
  // Under another bank id the records get ids of their own, so the copy can sit beside its original in one store.
  const copy = bankId !== header.bank.id;
  await store.createBank({ ...header.bank, id: bankId, embedder: null });
  const { threads } = options;
  // Thread memory a thread store kept for an earlier bank of this id (one outside the bank's database keeps it
  // after the bank is deleted) would mix with the archive's.
  await threads.deleteBank(bankId);
  const importer = new Importer(store, threads, embedder, header, bankId, options.batchSize ?? 256, copy);
  const checker = new ArchiveChecker();
  let lineNumber = headerLine;
  try {
    for (let next = await lines.next(); !next.done; next = await lines.next()) {
      lineNumber++;
      if (next.value.trim() === '') continue;
      await importer.take(checker.check(parseRecord(next.value, lineNumber), lineNumber));
      options.onRecord?.(lineNumber);
    }
    checker.finish();
    await importer.finish();
  } catch (e) {
    await threads.deleteBank(bankId).catch(() => undefined);
    await store.deleteBank(bankId).catch(() => undefined);
    throw e;
  }
  return { bankId, counts: importer.counts, reembedded: importer.reembedded, embedder: embedder.id };
}
