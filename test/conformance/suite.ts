// The store conformance suite: the behaviours every MemoryStore must have, whatever it is built on. The embedded
// store runs it in CI (sqlite.test.ts); the server store runs it against real Neo4j and Qdrant when they are
// configured (server.test.ts). Each test works in banks of its own, named for this run, so a shared server
// holding other data (or an earlier run's) changes nothing.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Fact, Operation } from '../../src/core/types.ts';
import type { FactFilter, MemoryStore, ObservationWrite } from '../../src/store/ports.ts';
import { FORGOTTEN_TEXT } from '../../src/store/ports.ts';
import { Engine } from '../../src/engine.ts';
import { OfflineExtractor } from '../../src/retain/offline-extractor.ts';
import { nameKey } from '../../src/text/words.ts';
import { at, bank, chunk, doc, EMBEDDER, entity, fact, HashEmbedder, itemWrite, observation, runId, sleep, unit } from './fixtures.ts';

export interface StoreHarness {
  /** Opens the store; opening again after close must find everything written before (a restart). */
  open(): Promise<MemoryStore>;
  /** Removes what the run left (banks are deleted by the suite itself; this is for files or connections). */
  cleanup?(): Promise<void>;
}

/** The optional read the keyword arm uses (proposed for the port); checked when the store has it. */
type ChunkFacts = { factIdsOfChunks?(bankId: string, chunkIds: string[]): Promise<Array<{ factId: string; chunkId: string }>> };

const idsOf = (xs: Array<{ id: string }>): string[] => xs.map((x) => x.id);
const sorted = (xs: string[]): string[] => [...xs].sort();

function observationWrite(bankId: string, o: Partial<ObservationWrite> = {}): ObservationWrite {
  return {
    bankId, observations: [], vectors: [], embedder: EMBEDDER, evidence: [], revisions: [], supersede: [], removeObservationIds: [],
    consolidatedFactIds: [], workerId: 'conformance', ...o,
  };
}

export function storeConformance(label: string, harness: StoreHarness): void {
  describe(`store conformance: ${label}`, () => {
    const run = runId();
    const B = (name: string): string => `conf-${run}-${name}`;
    const created = new Set<string>();
    let store: MemoryStore;

    before(async () => {
      store = await harness.open();
    });
    after(async () => {
      for (const id of created) await store.deleteBank(id).catch(() => undefined);
      await store.close();
      await harness.cleanup?.();
    });

    function operation(bankId: string, id: string, status: Operation['status']): Operation {
      return { id, bankId, kind: 'retain', status, progress: { done: 0, total: 3 }, input: { items: [{ content: 'x' }] }, result: null, error: null, createdAt: at(1), updatedAt: at(1) };
    }

    async function newBank(name: string): Promise<string> {
      const id = B(name);
      await store.createBank(bank(id, `mission of ${name}`));
      created.add(id);
      return id;
    }

    /** A bank with one document: 4 facts over 2 chunks, 2 entities, links, all with vectors. */
    async function seeded(name: string): Promise<{ bankId: string; facts: Fact[] }> {
      const bankId = await newBank(name);
      const c1 = chunk(bankId, `${bankId}-d1`, `${bankId}-c1`, 0, 'I moved to Berlin to join a robotics startup.', 'Alice');
      const c2 = chunk(bankId, `${bankId}-d1`, `${bankId}-c2`, 1, 'My sister plays the violin in Vienna.', 'Alice');
      const alice = entity(bankId, `${bankId}-e-alice`, 'Alice', ['Ali'], 3);
      const anna = entity(bankId, `${bankId}-e-anna`, 'Anna', [], 1);
      const facts = [
        fact(bankId, `${bankId}-f1`, 'Alice moved to Berlin', { chunk: c1, entities: [alice.id], tags: ['move'], occurredStart: at(10), createdAt: at(3, 1) }),
        fact(bankId, `${bankId}-f2`, 'Alice joined a robotics startup', { chunk: c1, entities: [alice.id], tags: ['work'], occurredStart: at(20), createdAt: at(3, 2) }),
        fact(bankId, `${bankId}-f3`, 'Anna plays the violin', { chunk: c2, entities: [anna.id, alice.id], kind: 'experience', createdAt: at(3, 3) }),
        fact(bankId, `${bankId}-f4`, 'Anna lives in Vienna', { chunk: c2, entities: [anna.id], tags: ['move', 'work'], occurredStart: at(25), occurredEnd: at(28), createdAt: at(4) }),
      ];
      await store.writeItem(
        itemWrite(bankId, doc(bankId, `${bankId}-d1`), [c1, c2], facts.map((f, i) => ({ fact: f, vector: unit(i) })), {
          entities: [alice, anna],
          links: [
            { bankId, from: facts[0].id, to: facts[1].id, type: 'temporal', weight: 1 },
            { bankId, from: facts[1].id, to: facts[2].id, type: 'causal', weight: 0.5 },
          ],
        }),
      );
      return { bankId, facts };
    }

    test('banks: create, read, list, update; a second bank with the same id is refused', async () => {
      const id = await newBank('banks');
      const got = await store.getBank(id);
      assert.ok(got);
      assert.equal(got.mission, 'mission of banks');
      assert.deepEqual(got.config, { retainMission: 'remember people', nested: { a: 1 } });
      assert.equal(got.embedder, null);
      assert.ok((await store.listBanks()).some((b) => b.id === id));
      await store.updateBank({ ...got, name: 'renamed', mission: 'new mission', config: { x: 'y' }, updatedAt: at(9) });
      const updated = await store.getBank(id);
      assert.equal(updated?.name, 'renamed');
      assert.equal(updated?.mission, 'new mission');
      assert.deepEqual(updated?.config, { x: 'y' });
      await assert.rejects(store.createBank(bank(id)));
      assert.equal(await store.getBank(B('no-such-bank')), null);
    });

    test('writeItem: everything it wrote reads back', async () => {
      const { bankId, facts } = await seeded('write');
      const d = await store.getDocument(bankId, `${bankId}-d1`);
      assert.equal(d?.contentHash, `hash-${bankId}-d1`);
      assert.deepEqual(d?.metadata, { source: 'conformance' });
      const chunks = await store.listChunks(bankId, `${bankId}-d1`);
      assert.deepEqual(idsOf(chunks), [`${bankId}-c1`, `${bankId}-c2`]);
      assert.equal(chunks[0].speaker, 'Alice');
      assert.deepEqual(idsOf(await store.getChunks(bankId, [`${bankId}-c2`])), [`${bankId}-c2`]);
      const read = await store.getFacts(bankId, [facts[2].id, facts[0].id]);
      assert.deepEqual(idsOf(read), [facts[2].id, facts[0].id], 'in the order asked');
      for (const f of read) {
        const want = facts.find((x) => x.id === f.id)!;
        assert.deepEqual({ ...f, entities: sorted(f.entities) }, { ...want, entities: sorted(want.entities) });
      }
      const page = await store.listFacts(bankId, { limit: 3, offset: 0 });
      assert.equal(page.total, 4);
      assert.deepEqual(idsOf(page.facts), idsOf(facts.slice(0, 3)), 'in the order written');
      assert.deepEqual(idsOf((await store.listFacts(bankId, { limit: 3, offset: 3 })).facts), [facts[3].id]);
      assert.deepEqual(sorted(idsOf((await store.listFacts(bankId, { limit: 10, offset: 0, entityId: `${bankId}-e-anna` })).facts)), sorted([facts[2].id, facts[3].id]));
      assert.equal((await store.listFacts(bankId, { limit: 10, offset: 0, documentId: `${bankId}-d1`, kinds: ['experience'] })).total, 1);
      assert.equal((await store.listFacts(bankId, { limit: 10, offset: 0, tags: ['move', 'work'] })).total, 1);
      assert.equal((await store.getBank(bankId))?.embedder, EMBEDDER, 'the bank takes the embedder of its first vectors');
      const vectors = await store.getVectors(bankId, [facts[1].id]);
      assert.ok(vectors.get(facts[1].id));
      assert.ok(Math.abs(vectors.get(facts[1].id)![1] - unit(1)[1]) < 1e-6);
      const entities = await store.getEntities(bankId, [`${bankId}-e-anna`, `${bankId}-e-alice`]);
      assert.deepEqual(idsOf(entities), [`${bankId}-e-anna`, `${bankId}-e-alice`]);
      assert.deepEqual(idsOf(await store.listEntities(bankId, 10, 0)), [`${bankId}-e-alice`, `${bankId}-e-anna`], 'most mentioned first');
      assert.deepEqual(idsOf(await store.findEntities(bankId, ['ali'])), [`${bankId}-e-alice`], 'found by an alias key');
      const documents = await store.listDocuments(bankId, 10, 0);
      assert.deepEqual(idsOf(documents), [`${bankId}-d1`]);
      const links = await store.listLinks(bankId, 10, 0);
      assert.deepEqual(
        links.map((l) => `${l.from}>${l.to}:${l.type}:${l.weight}`).sort(),
        [`${facts[0].id}>${facts[1].id}:temporal:1`, `${facts[1].id}>${facts[2].id}:causal:0.5`].sort(),
      );
      const cf = store as MemoryStore & ChunkFacts;
      if (cf.factIdsOfChunks) {
        const owned = await cf.factIdsOfChunks(bankId, [`${bankId}-c2`]);
        assert.deepEqual(sorted(owned.map((o) => o.factId)), sorted([facts[2].id, facts[3].id]));
      }
    });

    test('writeItem is all or nothing', async () => {
      const { bankId, facts } = await seeded('atomic');
      const c = chunk(bankId, `${bankId}-d2`, `${bankId}-c9`, 0, 'The cat is called Miso.');
      const bad = itemWrite(bankId, doc(bankId, `${bankId}-d2`), [c], [{ fact: fact(bankId, `${bankId}-f9`, 'The cat is Miso', { chunk: c }), vector: unit(5) }], {
        embedder: 'another-embedder',
      });
      await assert.rejects(store.writeItem(bad), /embedder|another-embedder/);
      assert.equal(await store.getDocument(bankId, `${bankId}-d2`), null, 'no document');
      assert.deepEqual(await store.getFacts(bankId, [`${bankId}-f9`]), [], 'no fact');
      assert.deepEqual(await store.listChunks(bankId, `${bankId}-d2`), [], 'no chunk');
      assert.equal((await store.listFacts(bankId, { limit: 10, offset: 0 })).total, 4);

      const good = itemWrite(bankId, doc(bankId, `${bankId}-d2`), [c], [{ fact: fact(bankId, `${bankId}-f9`, 'The cat is Miso', { chunk: c }), vector: unit(5) }], {
        links: [{ bankId, from: facts[0].id, to: `${bankId}-f9`, type: 'semantic', weight: 0.7 }],
      });
      await store.writeItem(good);
      assert.equal((await store.listFacts(bankId, { limit: 10, offset: 0 })).total, 5);
      assert.deepEqual(idsOf(await store.listChunks(bankId, `${bankId}-d2`)), [`${bankId}-c9`]);
      assert.equal((await store.listLinks(bankId, 10, 0)).length, 3);
    });

    test('rewriting a document removes the facts of its old chunks from every index', async () => {
      const { bankId, facts } = await seeded('rewrite');
      const c3 = chunk(bankId, `${bankId}-d1`, `${bankId}-c3`, 1, 'My brother Tom plays chess.');
      const tom = fact(bankId, `${bankId}-f5`, 'Tom plays chess', { chunk: c3 });
      await store.writeItem(
        itemWrite(bankId, doc(bankId, `${bankId}-d1`, 'hash-2'), [c3], [{ fact: tom, vector: unit(6) }], { removeChunkIds: [`${bankId}-c2`] }),
      );
      assert.deepEqual(idsOf(await store.listChunks(bankId, `${bankId}-d1`)), [`${bankId}-c1`, `${bankId}-c3`]);
      assert.deepEqual(await store.getFacts(bankId, [facts[2].id, facts[3].id]), []);
      assert.equal((await store.getDocument(bankId, `${bankId}-d1`))?.contentHash, 'hash-2');
      assert.ok(!idsOf(await store.vectors.search(bankId, unit(3), 10)).includes(facts[3].id));
      assert.deepEqual(await store.keywords.searchFacts(bankId, 'violin', 10), []);
      assert.deepEqual(await store.keywords.searchChunks(bankId, 'violin', 10), []);
      assert.deepEqual(await store.graph.linksOf(bankId, [facts[2].id]), []);
      assert.deepEqual(await store.findEntities(bankId, ['anna']), [], 'an entity no fact mentions is gone');
      assert.deepEqual(idsOf(await store.keywords.searchFacts(bankId, 'chess', 10)), [tom.id]);
    });

    test('newest facts: of the bank or of one entity, newest first, filtered, at most the limit', async () => {
      const { bankId, facts } = await seeded('newest');
      const alice = `${bankId}-e-alice`;
      const ids = async (q: Parameters<typeof store.newestFacts>[1]): Promise<string[]> => idsOf(await store.newestFacts(bankId, q));
      assert.deepEqual(await ids({ entityId: alice, limit: 10 }), [facts[2].id, facts[1].id, facts[0].id]);
      assert.deepEqual(await ids({ entityId: alice, limit: 2 }), [facts[2].id, facts[1].id]);
      assert.deepEqual(await ids({ entityId: alice, limit: 10, kinds: ['world'] }), [facts[1].id, facts[0].id]);
      assert.deepEqual(await ids({ limit: 2 }), [facts[3].id, facts[2].id]);
      assert.deepEqual(await ids({ limit: 10, tags: ['work'] }), [facts[3].id, facts[1].id]);
      await store.applyObservations(observationWrite(bankId, { supersede: [{ factId: facts[1].id, by: facts[0].id, at: at(6) }] }));
      assert.deepEqual(await ids({ entityId: alice, limit: 10 }), [facts[2].id, facts[0].id], 'superseded facts are not current');
      assert.deepEqual(await ids({ entityId: `${bankId}-e-nobody`, limit: 10 }), []);
      assert.deepEqual(await store.newestFacts(B('no-such-bank'), { entityId: alice, limit: 10 }), []);
    });

    test("a fact's context is searched by keyword beside its text, and its stance is a filter", async () => {
      const { bankId } = await seeded('context');
      const c = chunk(bankId, `${bankId}-d3`, `${bankId}-c7`, 0, '## Flaky Cypress suite\n\nIt fails once in five runs.');
      const quiet = fact(bankId, `${bankId}-f7`, 'It fails once in five runs', { chunk: c, context: 'Flaky Cypress suite' });
      const rule = fact(bankId, `${bankId}-f8`, 'Always answer with a code example', { chunk: c, stance: 'instruction' });
      await store.writeItem(itemWrite(bankId, doc(bankId, `${bankId}-d3`), [c], [{ fact: quiet, vector: unit(5) }, { fact: rule, vector: unit(6) }]));
      assert.deepEqual(idsOf(await store.keywords.searchFacts(bankId, 'cypress', 10)), [quiet.id], 'found by a word of its context only');
      const [read] = await store.getFacts(bankId, [quiet.id]);
      assert.equal(read.text, 'It fails once in five runs');
      assert.equal(read.context, 'Flaky Cypress suite');
      const standing = await store.listFacts(bankId, { limit: 10, offset: 0, stances: ['instruction', 'preference'] });
      assert.deepEqual(idsOf(standing.facts), [rule.id]);
      assert.equal(standing.facts[0].stance, 'instruction');
    });

    test('vector search: nearest first, filtered by kind, tags, supersession and record time', async () => {
      const { bankId, facts } = await seeded('vectors');
      const hits = await store.vectors.search(bankId, unit(1), 4);
      assert.equal(hits[0].id, facts[1].id);
      assert.equal(hits.length, 4);
      for (let i = 1; i < hits.length; i++) assert.ok(hits[i - 1].score >= hits[i].score, 'scores descend');
      assert.ok(hits[0].score > 0.9);
      assert.deepEqual(idsOf(await store.vectors.search(bankId, unit(0), 2)), [facts[0].id, facts[1].id]);
      assert.deepEqual(idsOf(await store.vectors.search(bankId, unit(0), 10, { kinds: ['experience'] })), [facts[2].id]);
      assert.deepEqual(sorted(idsOf(await store.vectors.search(bankId, unit(0), 10, { tags: ['work'] }))), sorted([facts[1].id, facts[3].id]));
      assert.deepEqual(idsOf(await store.vectors.search(bankId, unit(0), 10, { tags: ['work', 'move'] })), [facts[3].id]);
      assert.deepEqual(sorted(idsOf(await store.vectors.search(bankId, unit(0), 10, { recordedBefore: at(3, 2) }))), sorted([facts[0].id, facts[1].id]));

      await store.applyObservations(observationWrite(bankId, { supersede: [{ factId: facts[0].id, by: facts[1].id, at: at(6) }] }));
      assert.ok(!idsOf(await store.vectors.search(bankId, unit(0), 10)).includes(facts[0].id), 'superseded facts are not current');
      assert.equal((await store.vectors.search(bankId, unit(0), 1, { includeSuperseded: true }))[0].id, facts[0].id);
      assert.ok(idsOf(await store.vectors.search(bankId, unit(0), 10, { recordedBefore: at(5) })).includes(facts[0].id), 'as of before it was superseded');
      const [superseded] = await store.getFacts(bankId, [facts[0].id]);
      assert.equal(superseded.status, 'superseded');
      assert.equal(superseded.supersededBy, facts[1].id);
      assert.equal(superseded.supersededAt, at(6));
      assert.equal(superseded.validTo, at(6));
      assert.deepEqual(await store.vectors.search(B('no-such-bank'), unit(0), 3), []);
    });

    test('keyword search: BM25 over facts (filtered) and over chunks (speaker included)', async () => {
      const { bankId, facts } = await seeded('keywords');
      const hits = await store.keywords.searchFacts(bankId, 'Where does Anna live? Vienna', 10);
      assert.equal(hits[0].id, facts[3].id, 'the fact matching both words first');
      assert.ok(hits.every((h) => h.score > 0));
      assert.ok(idsOf(hits).includes(facts[2].id));
      assert.deepEqual(idsOf(await store.keywords.searchFacts(bankId, 'Anna', 10, { kinds: ['experience'] })), [facts[2].id]);
      assert.deepEqual(idsOf(await store.keywords.searchFacts(bankId, 'moving', 10)), [facts[0].id], 'stemmed');
      assert.deepEqual(await store.keywords.searchFacts(bankId, 'the of and', 10), [], 'stopwords alone find nothing');
      assert.deepEqual(idsOf(await store.keywords.searchChunks(bankId, 'violin sister', 10)), [`${bankId}-c2`]);
      assert.equal((await store.keywords.searchChunks(bankId, 'alice', 10)).length, 2, 'the speaker is searchable');
      assert.deepEqual(await store.keywords.searchFacts(bankId, 'title:(x) OR "', 10), []);
    });

    test('graph: entities by key, facts of entities, links seen from either end', async () => {
      const { bankId, facts } = await seeded('graph');
      assert.deepEqual(idsOf(await store.graph.entitiesByKeys(bankId, ['alice', 'nobody'])), [`${bankId}-e-alice`]);
      const ofAnna = await store.graph.factsOfEntities(bankId, [`${bankId}-e-anna`], 10);
      assert.deepEqual(sorted(ofAnna.map((x) => x.factId)), sorted([facts[2].id, facts[3].id]));
      assert.ok(ofAnna.every((x) => x.entityId === `${bankId}-e-anna`));
      assert.equal((await store.graph.factsOfEntities(bankId, [`${bankId}-e-alice`], 2)).length, 2, 'limit per entity');
      const links = await store.graph.linksOf(bankId, [facts[1].id]);
      assert.deepEqual(links.map((l) => `${l.from}>${l.to}:${l.type}`).sort(), [`${facts[1].id}>${facts[0].id}:temporal`, `${facts[1].id}>${facts[2].id}:causal`].sort());
      assert.equal(links.find((l) => l.type === 'causal')?.weight, 0.5);
    });

    test('factsInTimeRange: overlapping facts, nearest the middle first', async () => {
      const { bankId, facts } = await seeded('time');
      const inRange = await store.factsInTimeRange(bankId, at(19), at(27), 10);
      assert.deepEqual(idsOf(inRange), [facts[3].id, facts[1].id], 'the span 25-28 overlaps, and its start is nearest day 23');
      assert.deepEqual(idsOf(await store.factsInTimeRange(bankId, at(9), at(11), 10)), [facts[0].id]);
      assert.deepEqual(idsOf(await store.factsInTimeRange(bankId, at(1, 0), at(2, 23), 10)), [facts[2].id], 'mentioned time when nothing occurred');
      assert.equal((await store.factsInTimeRange(bankId, at(1), at(30), 2)).length, 2, 'limit');
      assert.deepEqual(await store.factsInTimeRange(bankId, at(9), at(30), 10, { kinds: ['experience'] }), []);
    });

    test('occurred-time and valid-time filters: vector, keyword, chunk, time-range and list reads', async () => {
      const { bankId, facts } = await seeded('time-filters');
      const [f1, f2, f3, f4] = facts.map((f) => f.id);
      const all = 'Alice Anna Berlin robotics violin Vienna';
      const reads: Array<[string, (filter: FactFilter) => Promise<string[]>]> = [
        ['vectors', async (filter) => idsOf(await store.vectors.search(bankId, unit(0), 10, filter))],
        ['keywords', async (filter) => idsOf(await store.keywords.searchFacts(bankId, all, 10, filter))],
        ['listFacts', async (filter) => idsOf((await store.listFacts(bankId, { limit: 10, offset: 0, ...filter })).facts)],
        ['factsInTimeRange', async (filter) => idsOf(await store.factsInTimeRange(bankId, at(1, 0), at(31), 10, filter))],
      ];
      const cf = store as MemoryStore & ChunkFacts;
      if (cf.factIdsOfChunks) reads.push(['factIdsOfChunks', async (filter) => (await cf.factIdsOfChunks!(bankId, [`${bankId}-c1`, `${bankId}-c2`], filter)).map((x) => x.factId)]);
      const expect = async (filter: FactFilter, want: string[], why: string): Promise<void> => {
        for (const [name, read] of reads) assert.deepEqual(sorted(await read(filter)), sorted(want), `${name}: ${why}`);
      };
      // Occurred: f1 day 10, f2 day 20, f3 none, f4 days 25-28. Valid from the occurred start (f3: from the beginning).
      await expect({}, [f1, f2, f3, f4], 'no filter');
      await expect({ occurredFrom: at(19), occurredTo: at(26) }, [f2, f4], 'overlapping the range; undated facts left out');
      await expect({ occurredFrom: at(27) }, [f4], 'a span reaching past the lower bound');
      await expect({ occurredTo: at(10) }, [f1], 'an upper bound alone also leaves undated facts out');
      await expect({ validAt: at(15) }, [f1, f3], 'valid since before the instant, or from the beginning');
      await expect({ validAt: at(26), kinds: ['world'] }, [f1, f2, f4], 'with the other filters');

      await store.applyObservations(observationWrite(bankId, { supersede: [{ factId: f1, by: f2, at: at(21), validTo: at(18) }] }));
      await expect({ validAt: at(15) }, [f3], 'a superseded fact stays out by default');
      await expect({ validAt: at(15), includeSuperseded: true }, [f1, f3], 'valid then');
      await expect({ validAt: at(18), includeSuperseded: true }, [f3], 'validTo is exclusive');
      await expect({ validAt: at(15), recordedBefore: at(20) }, [f1, f3], 'as of before it was superseded');
    });

    test('sessions: ordered by their earliest item whatever the write order; replacing and deleting renumber; facts by session', async () => {
      const bankId = await newBank('sessions');
      const d = (n: string): string => `${bankId}-${n}`;
      /** A document of one session: a chunk (with one fact) per day given. */
      async function session(docId: string, session: string | null, days: number[], createdDay = 1): Promise<Fact[]> {
        const chunks = days.map((day, i) => ({ ...chunk(bankId, d(docId), d(`${docId}-c${i}-${day}`), i, `Said on day ${day}.`), timestamp: at(day), session }));
        const facts = chunks.map((c, i) =>
          fact(bankId, d(`${docId}-f${i}-${days[i]}`), `fact of ${docId} on day ${days[i]}`, { chunk: c, kind: i === 0 ? 'experience' : 'world' }),
        );
        await store.writeItem(
          itemWrite(bankId, { ...doc(bankId, d(docId), `hash-${days.join('-')}`), createdAt: at(createdDay) }, chunks, facts.map((f, i) => ({ fact: f, vector: unit(i) }))),
        );
        return facts;
      }
      // Written out of order: the third session first.
      await session('s3', d('s3'), [20, 21], 1);
      const s1 = await session('s1', d('s1'), [6, 5, 7], 2);
      await session('s2', d('s2'), [10], 3);
      await session('loose', null, [1], 4);
      // Two documents of one named session; and two sessions starting together, the one retained first first.
      await session('x-part1', 'x', [25], 5);
      await session('x-part2', 'x', [24], 6);
      await session('tie-a', d('tie-a'), [28], 7);
      await session('tie-b', d('tie-b'), [28], 8);

      const order = async (): Promise<string[]> => (await store.sessions(bankId)).map((s) => s.id);
      const sessions = await store.sessions(bankId);
      assert.deepEqual(sessions.map((s) => s.id), [d('s1'), d('s2'), d('s3'), 'x', d('tie-a'), d('tie-b')], 'by time; a chunk without a session is in none');
      assert.deepEqual(sessions.map((s) => s.ordinal), [1, 2, 3, 4, 5, 6]);
      assert.deepEqual([sessions[0].start, sessions[0].end], [at(5), at(7)]);
      assert.deepEqual([sessions[3].start, sessions[3].end], [at(24), at(25)], 'a session spans its documents');

      const [read] = await store.getFacts(bankId, [s1[0].id]);
      assert.equal(read.source?.session, d('s1'));
      assert.equal((await store.listChunks(bankId, d('s1')))[0].session, d('s1'));
      assert.equal((await store.listChunks(bankId, d('loose')))[0].session, null);

      const ofS1 = await store.factsOfSessions(bankId, [d('s1')], 10);
      assert.deepEqual(sorted(idsOf(ofS1)), sorted(idsOf(s1)));
      assert.equal((await store.factsOfSessions(bankId, [d('s1'), d('s2')], 1)).length, 2, 'a limit per session');
      assert.deepEqual(idsOf(await store.factsOfSessions(bankId, [d('s1')], 10, { kinds: ['experience'] })), [s1[0].id], 'filtered');
      assert.deepEqual(await store.factsOfSessions(bankId, [d('nothing')], 10), []);

      // Replacing the third session's document with one dated earlier makes it the first.
      const old = (await store.listChunks(bankId, d('s3'))).map((c) => c.id);
      const moved = { ...chunk(bankId, d('s3'), d('s3-moved'), 0, 'Said on day 2.'), timestamp: at(2), session: d('s3') };
      await store.writeItem(itemWrite(bankId, doc(bankId, d('s3'), 'hash-moved'), [moved], [], { removeChunkIds: old }));
      assert.deepEqual((await order()).slice(0, 3), [d('s3'), d('s1'), d('s2')]);
      // Deleting a session's document renumbers the rest.
      await store.deleteDocument(bankId, d('s1'), 'test');
      const after = await store.sessions(bankId);
      assert.deepEqual(after.slice(0, 2).map((s) => [s.id, s.ordinal]), [[d('s3'), 1], [d('s2'), 2]]);
      assert.deepEqual(await store.factsOfSessions(bankId, [d('s1')], 10), []);
      assert.deepEqual(await store.sessions(B('no-such-bank')), []);
    });

    test('observations: evidence, history, proof counts; a stale revision is refused', async () => {
      const { bankId, facts } = await seeded('observations');
      const o = observation(bankId, `${bankId}-o1`, 'Alice lives in Berlin and works at a startup', at(5), [`${bankId}-e-alice`]);
      await store.applyObservations(
        observationWrite(bankId, {
          observations: [o],
          vectors: [{ id: o.id, vector: unit(0, 1, 1) }],
          evidence: [
            { observationId: o.id, factId: facts[0].id, role: 'supports', createdAt: at(5, 1) },
            { observationId: o.id, factId: facts[1].id, role: 'supports', createdAt: at(5, 2) },
          ],
          revisions: [{ id: `${bankId}-r1`, observationId: o.id, oldText: null, newText: o.text, factIds: [facts[0].id, facts[1].id], reason: 'created', at: at(5) }],
        }),
      );
      const [got] = await store.getObservations(bankId, [o.id]);
      assert.equal(got.text, o.text);
      assert.equal(got.proofCount, 2);
      assert.deepEqual((await store.evidenceOf(bankId, o.id)).map((e) => e.factId), [facts[0].id, facts[1].id]);
      assert.deepEqual((await store.observationsOfFact(bankId, facts[1].id)).map((e) => e.observationId), [o.id]);
      assert.ok(idsOf(await store.vectors.search(bankId, unit(0, 1, 1), 3, { kinds: ['observation'] })).includes(o.id));
      const revised = { ...o, text: 'Alice lives in Berlin', updatedAt: at(6) };
      await store.applyObservations(
        observationWrite(bankId, {
          observations: [revised],
          evidence: [{ observationId: o.id, factId: facts[2].id, role: 'contradicts', createdAt: at(6) }],
          revisions: [{ id: `${bankId}-r2`, observationId: o.id, oldText: o.text, newText: revised.text, factIds: [facts[2].id], reason: 'refined', at: at(6) }],
          expectUnchanged: [{ id: o.id, updatedAt: o.updatedAt }],
        }),
      );
      assert.equal((await store.getObservations(bankId, [o.id]))[0].text, 'Alice lives in Berlin');
      assert.equal((await store.getObservations(bankId, [o.id]))[0].proofCount, 2, 'a contradiction is not proof');
      assert.deepEqual((await store.historyOf(bankId, o.id)).map((r) => r.reason), ['created', 'refined']);
      await assert.rejects(
        store.applyObservations(observationWrite(bankId, { observations: [{ ...revised, text: 'stale' }], expectUnchanged: [{ id: o.id, updatedAt: o.updatedAt }] })),
        /changed/,
      );
      assert.equal((await store.getObservations(bankId, [o.id]))[0].text, 'Alice lives in Berlin');
      await store.applyObservations(observationWrite(bankId, { removeObservationIds: [o.id] }));
      assert.deepEqual(await store.getObservations(bankId, [o.id]), []);
      assert.deepEqual(await store.observationsOfFact(bankId, facts[0].id), []);
    });

    test('deleting a document cascades through every index, leaves a tombstone, and blanks observations citing it', async () => {
      const { bankId, facts } = await seeded('delete-doc');
      const c = chunk(bankId, `${bankId}-d2`, `${bankId}-c5`, 0, 'Bob paints watercolours.');
      const bob = fact(bankId, `${bankId}-f6`, 'Bob paints watercolours', { chunk: c });
      await store.writeItem(itemWrite(bankId, doc(bankId, `${bankId}-d2`), [c], [{ fact: bob, vector: unit(7) }], {
        links: [{ bankId, from: bob.id, to: facts[0].id, type: 'semantic', weight: 0.9 }],
      }));
      const o = observation(bankId, `${bankId}-o1`, 'Alice moved to Berlin; Anna plays the violin');
      await store.applyObservations(
        observationWrite(bankId, {
          observations: [o],
          vectors: [{ id: o.id, vector: unit(2) }],
          evidence: [
            { observationId: o.id, factId: facts[0].id, role: 'supports', createdAt: at(5) },
            { observationId: o.id, factId: facts[2].id, role: 'supports', createdAt: at(5) },
          ],
          revisions: [{ id: `${bankId}-r1`, observationId: o.id, oldText: null, newText: o.text, factIds: [facts[0].id, facts[2].id], reason: 'created', at: at(5) }],
        }),
      );
      const deleted = await store.deleteDocument(bankId, `${bankId}-d1`, 'user asked');
      assert.ok(deleted);
      assert.deepEqual(sorted(deleted.factIds), sorted(idsOf(facts)));
      assert.deepEqual(deleted.observationIds, [o.id]);
      assert.equal(await store.getDocument(bankId, `${bankId}-d1`), null);
      assert.deepEqual(await store.listChunks(bankId, `${bankId}-d1`), []);
      assert.deepEqual(await store.getFacts(bankId, idsOf(facts)), []);
      assert.equal((await store.listFacts(bankId, { limit: 10, offset: 0 })).total, 2, 'the other document and the observation remain');
      assert.deepEqual((await store.getVectors(bankId, idsOf(facts))).size, 0);
      assert.deepEqual(idsOf(await store.vectors.search(bankId, unit(0), 10)), [bob.id]);
      assert.deepEqual(await store.keywords.searchFacts(bankId, 'Berlin violin', 10), []);
      assert.deepEqual(await store.keywords.searchChunks(bankId, 'Berlin violin', 10), []);
      assert.deepEqual(await store.graph.linksOf(bankId, [bob.id]), []);
      assert.deepEqual(await store.evidenceOf(bankId, o.id), []);
      assert.deepEqual(await store.findEntities(bankId, ['alice', 'anna']), []);
      const [blank] = await store.getObservations(bankId, [o.id]);
      assert.equal(blank.text, FORGOTTEN_TEXT, 'the observation no longer quotes the deleted facts');
      assert.ok((await store.historyOf(bankId, o.id)).every((r) => r.newText === FORGOTTEN_TEXT));
      const tombstones = await store.tombstones(bankId, 10);
      const t = tombstones.find((x) => x.kind === 'document');
      assert.equal(t?.targetId, `${bankId}-d1`);
      assert.equal(t?.reason, 'user asked');
      assert.ok(!JSON.stringify(tombstones).includes('Berlin'), 'a tombstone never holds the content');
      assert.equal(await store.deleteDocument(bankId, `${bankId}-d1`, 'again'), null);
    });

    test('deleting facts: tombstones per fact, a fact they superseded is current again', async () => {
      const { bankId, facts } = await seeded('delete-facts');
      await store.applyObservations(observationWrite(bankId, { supersede: [{ factId: facts[0].id, by: facts[1].id, at: at(6) }] }));
      const deleted = await store.deleteFacts(bankId, [facts[1].id, `${bankId}-missing`], 'wrong');
      assert.deepEqual(deleted.factIds, [facts[1].id]);
      const [back] = await store.getFacts(bankId, [facts[0].id]);
      assert.equal(back.status, 'active');
      assert.equal(back.supersededBy, null);
      assert.ok(idsOf(await store.vectors.search(bankId, unit(1), 10)).every((id) => id !== facts[1].id));
      assert.deepEqual(await store.graph.linksOf(bankId, [facts[0].id]), []);
      assert.deepEqual((await store.tombstones(bankId, 10)).map((t) => `${t.kind}:${t.targetId}:${t.reason}`), [`fact:${facts[1].id}:wrong`]);
    });

    test('tombstones: pages newest first (ties by id), and exported ones are restored as they were', async () => {
      const { bankId, facts } = await seeded('tombstone-pages');
      await store.deleteFacts(bankId, idsOf(facts).slice(0, 3), 'one by one');
      const all = await store.tombstones(bankId, 100);
      assert.equal(all.length, 3);
      const newestFirst = <T extends { at: string; id: string }>(ts: T[]): T[] =>
        [...ts].sort((a, b) => (a.at !== b.at ? (a.at < b.at ? 1 : -1) : a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
      assert.deepEqual(all, newestFirst(all));
      const paged = [...(await store.tombstones(bankId, 2, 0)), ...(await store.tombstones(bankId, 2, 2))];
      assert.deepEqual(paged, all);
      const copy = await newBank('tombstone-restore');
      const restored = [...all.map((t) => ({ ...t, id: `${t.id}-copy`, bankId: copy })), { id: `${copy}-t-old`, bankId: copy, kind: 'bank' as const, targetId: copy, reason: 'bank deleted', at: at(1) }];
      await store.restoreTombstones(restored);
      assert.deepEqual(await store.tombstones(copy, 100), newestFirst(restored));
      assert.equal((await store.tombstones(bankId, 100)).length, 3, 'the other bank keeps its own');
    });

    test('banks are isolated: same content, separate answers; deleting one leaves the other', async () => {
      const one = await seeded('iso-a');
      const two = await seeded('iso-b');
      assert.ok(idsOf(await store.vectors.search(one.bankId, unit(0), 10)).every((id) => id.startsWith(one.bankId)));
      assert.ok(idsOf(await store.keywords.searchFacts(two.bankId, 'Berlin Vienna', 10)).every((id) => id.startsWith(two.bankId)));
      assert.ok(idsOf(await store.keywords.searchChunks(two.bankId, 'Berlin Vienna', 10)).every((id) => id.startsWith(two.bankId)));
      assert.deepEqual(await store.getFacts(one.bankId, [two.facts[0].id]), []);
      assert.deepEqual(await store.graph.entitiesByKeys(one.bankId, ['alice']).then(idsOf), [`${one.bankId}-e-alice`]);
      assert.deepEqual(await store.factsInTimeRange(two.bankId, at(9), at(11), 10).then(idsOf), [two.facts[0].id]);
      await store.deleteBank(one.bankId);
      created.delete(one.bankId);
      assert.equal(await store.getBank(one.bankId), null);
      assert.deepEqual(await store.getFacts(one.bankId, idsOf(one.facts)), []);
      assert.deepEqual(await store.vectors.search(one.bankId, unit(0), 10), []);
      assert.deepEqual(await store.keywords.searchFacts(one.bankId, 'Berlin', 10), []);
      assert.equal((await store.tombstones(one.bankId, 10)).filter((t) => t.kind === 'bank').length, 1);
      assert.equal((await store.listFacts(two.bankId, { limit: 10, offset: 0 })).total, 4);
      assert.equal((await store.vectors.search(two.bankId, unit(0), 10)).length, 4);
    });

    test("banks are isolated in keyword ranking: another bank's content changes neither the hits nor their scores", async () => {
      const { bankId } = await seeded('kw-iso-a');
      const queries = ['Where does Anna live? Vienna', 'Alice moved to Berlin', 'violin sister startup'];
      const search = (): Promise<unknown[]> =>
        Promise.all(queries.flatMap((q) => [store.keywords.searchFacts(bankId, q, 10), store.keywords.searchChunks(bankId, q, 10)]));
      const before = await search();
      assert.ok(before.every((hits) => (hits as unknown[]).length > 0), 'every query finds something in the bank');

      // Another bank, much larger, full of the same words in texts of other lengths.
      const other = await newBank('kw-iso-b');
      const words = ['Anna', 'lives', 'Vienna', 'Alice', 'moved', 'Berlin', 'violin', 'sister', 'startup', 'robotics'];
      for (let d = 0; d < 4; d++) {
        const docId = `${other}-d${d}`;
        const chunks = Array.from({ length: 40 }, (_, i) => {
          const text = `${words.slice(0, 1 + ((d * 40 + i) % words.length)).join(' ')} note ${d}-${i}`;
          return chunk(other, docId, `${docId}-c${i}`, i, text, i % 2 ? 'Alice' : 'Anna');
        });
        const facts = chunks.map((c, i) => ({ fact: fact(other, `${docId}-f${i}`, `${c.text} again and again`, { chunk: c }), vector: unit(i) }));
        await store.writeItem(itemWrite(other, doc(other, docId), chunks, facts));
      }
      assert.equal((await store.keywords.searchFacts(other, 'Vienna', 500)).length, 128, 'the other bank is indexed');
      assert.deepEqual(await search(), before, 'the same ids with the same scores');
      await store.deleteBank(other);
      created.delete(other);
      assert.deepEqual(await search(), before, 'and after the other bank is deleted');
    });

    test('consolidation claims: never the same fact twice; an expired lease is taken over; a lost lease cannot apply', async () => {
      const { bankId, facts } = await seeded('claims');
      assert.ok((await store.banksWithBacklog()).includes(bankId));
      const [a, b] = await Promise.all([store.claimUnconsolidated(bankId, 'worker-a', 2, 60_000), store.claimUnconsolidated(bankId, 'worker-b', 2, 60_000)]);
      const claimed = [...(a?.factIds ?? []), ...(b?.factIds ?? [])];
      assert.ok(claimed.length >= 2);
      assert.equal(new Set(claimed).size, claimed.length, 'no fact claimed twice');
      const holder = a ? 'worker-a' : 'worker-b';
      const first = (a ?? b)!;
      assert.deepEqual(first.factIds, [facts[0].id, facts[1].id], 'oldest first');
      await store.failClaim(bankId, holder, first.factIds, 'release', 99, 0);
      if (a && b) await store.failClaim(bankId, 'worker-b', b.factIds, 'release', 99, 0);

      const short = await store.claimUnconsolidated(bankId, 'worker-a', 4, 1);
      assert.deepEqual(short?.factIds, idsOf(facts));
      await sleep(20);
      const taken = await store.claimUnconsolidated(bankId, 'worker-b', 4, 60_000);
      assert.deepEqual(taken?.factIds, idsOf(facts), 'the expired lease is taken over');
      assert.equal(await store.claimUnconsolidated(bankId, 'worker-c', 4, 60_000), null, 'nothing left while worker-b holds them');
      await assert.rejects(store.applyObservations(observationWrite(bankId, { workerId: 'worker-a', consolidatedFactIds: idsOf(facts) })), /lease/);
      await store.applyObservations(observationWrite(bankId, { workerId: 'worker-b', consolidatedFactIds: idsOf(facts) }));
      const backlog = await store.backlog(bankId);
      assert.deepEqual({ waiting: backlog.waiting, failed: backlog.failed, consolidated: backlog.consolidated }, { waiting: 0, failed: 0, consolidated: 4 });
      assert.equal(await store.hasWaiting(bankId), false, 'nothing waits once all are consolidated');
      assert.ok(!(await store.banksWithBacklog()).includes(bankId));
      assert.ok((await store.getFacts(bankId, [facts[0].id]))[0].consolidatedAt);
      assert.equal(await store.claimUnconsolidated(bankId, 'worker-a', 4, 60_000), null);
    });

    test("heartbeats: a claim lapses with its holder's heartbeat, before its lease; a retired holder's claims are free", async () => {
      const { bankId, facts } = await seeded('liveness');
      const [alive, other] = [`${bankId}-w1`, `${bankId}-w2`];
      const beat = (id: string, aliveMs: number) =>
        store.beat({ id, role: 'worker', host: 'conformance', pid: 7, startedAt: at(1), beatAt: new Date().toISOString(), aliveUntil: new Date(Date.now() + aliveMs).toISOString() });
      await beat(alive, 60_000);
      const held = await store.claimUnconsolidated(bankId, alive, 2, 60_000);
      assert.deepEqual(held?.factIds, [facts[0].id, facts[1].id]);
      assert.equal(await store.claimUnconsolidated(bankId, other, 2, 60_000), null, 'a live holder keeps the bank');
      const detail = await store.queueDetail(bankId);
      assert.deepEqual(detail.claims, [{ workerId: alive, facts: 2, leaseUntil: held!.leaseUntil }]);
      assert.equal(detail.ready, 2, 'the unclaimed facts are ready (for the holder)');
      assert.deepEqual(detail.retrying, { facts: 0, nextAttemptAt: null, lastError: null });

      await beat(alive, -1000);
      assert.equal((await store.queueDetail(bankId)).ready, 4, "a silent holder's facts are ready again, its lease running or not");
      const taken = await store.claimUnconsolidated(bankId, other, 4, 60_000);
      assert.deepEqual(taken?.factIds, idsOf(facts), 'taken over long before the lease ends');
      await assert.rejects(store.applyObservations(observationWrite(bankId, { workerId: alive, consolidatedFactIds: [facts[0].id] })), /lease/);

      await beat(other, 60_000);
      const mine = (await store.heartbeats()).find((h) => h.id === other);
      assert.equal(mine?.role, 'worker');
      assert.deepEqual([mine?.host, mine?.pid, mine?.startedAt], ['conformance', 7, at(1)]);
      assert.equal(await store.retireHeartbeat(other, '2000-01-01T00:00:00.000Z'), false, 'a holder that beat since is kept');
      assert.equal((await store.queueDetail(bankId)).claims.length, 1);
      assert.equal(await store.retireHeartbeat(other, mine!.beatAt), true);
      assert.ok(!(await store.heartbeats()).some((h) => h.id === other));
      assert.deepEqual((await store.queueDetail(bankId)).claims, [], "a retired holder's claims are released");
      assert.equal((await store.queueDetail(bankId)).ready, 4);

      const again = await store.claimUnconsolidated(bankId, other, 1, 60_000);
      await store.failClaim(bankId, other, again!.factIds, 'boom', 5, 60_000);
      const retrying = await store.queueDetail(bankId);
      assert.equal(retrying.ready, 3);
      assert.equal(retrying.retrying.facts, 1);
      assert.equal(retrying.retrying.lastError, 'boom');
      assert.ok(retrying.retrying.nextAttemptAt! > new Date().toISOString(), 'with the time of its next attempt');
      assert.equal(await store.retireHeartbeat(alive, null), true);
    });

    test('write leases: one holder per bank, renewed by it, taken when lapsed or from a holder found dead, across two store instances', async () => {
      const bankId = await newBank('leases');
      const other = await newBank('leases-other');
      const second = await harness.open(); // another process's connection
      try {
        const lease = (holder: string, ms = 60_000, id = bankId) =>
          ({ bankId: id, holder, host: 'conformance', pid: 7, startedAt: at(1), until: new Date(Date.now() + ms).toISOString() });
        const a = lease('holder-a');
        assert.deepEqual(await store.takeWriteLease(a), a, 'a free lease is taken');
        assert.deepEqual(await second.takeWriteLease(lease('holder-b')), a, 'refused while another holds it: the holder is named');
        assert.equal((await second.takeWriteLease(lease('holder-b', 60_000, other))).holder, 'holder-b', 'banks have leases of their own');
        const renewed = lease('holder-a', 120_000);
        assert.deepEqual(await store.takeWriteLease(renewed), renewed, 'its holder renews it');
        assert.equal((await second.takeWriteLease(lease('holder-b'), 'holder-z')).holder, 'holder-a', 'a takeover names the holder it replaces');
        assert.equal((await second.takeWriteLease(lease('holder-b'), 'holder-a')).holder, 'holder-b', 'taken over from a holder found dead');
        await store.releaseWriteLease(bankId, 'holder-a');
        assert.equal((await store.takeWriteLease(lease('holder-c'))).holder, 'holder-b', "a former holder's release changes nothing");
        await second.releaseWriteLease(bankId, 'holder-b');
        assert.equal((await store.takeWriteLease(lease('holder-c', -1000))).holder, 'holder-c', 'a released lease is free');
        assert.equal((await second.takeWriteLease(lease('holder-d'))).holder, 'holder-d', 'a lease that ran out is free');
        await second.releaseWriteLease(bankId, 'holder-d');
        await second.releaseWriteLease(other, 'holder-b');
      } finally {
        await second.close();
      }
    });

    test('two store instances retaining into one bank at once resolve each name to one entity', async () => {
      const bankId = await newBank('two-writers');
      const second = await harness.open();
      const engines = [store, second].map((s) => new Engine({ store: s, embedder: new HashEmbedder(), reranker: null, extractor: new OfflineExtractor() }));
      try {
        const names = ['Alice Johnson', 'Bob Carter', 'Carol Diaz', 'Dmitri Ivanov'];
        const items = (n: number) =>
          names.map((name, i) => ({ content: `${name} met ${names[(i + 1) % names.length]} in Berlin on day ${n}. ${name} works at Globex Corporation.`, timestamp: at(2 + n) }));
        await Promise.all(Array.from({ length: 6 }, (_, n) => engines[n % 2].retain(bankId, { items: items(n) })));
        // Every entity row (a duplicate may be unreachable by its name's key, which the first one took).
        const byName = new Map<string, string[]>();
        for (const e of await store.listEntities(bankId, 1000, 0)) byName.set(nameKey(e.name), [...(byName.get(nameKey(e.name)) ?? []), e.id]);
        for (const name of [...names, 'Globex Corporation'])
          assert.equal(byName.get(nameKey(name))?.length, 1, `one entity named ${name}: ${JSON.stringify(byName.get(nameKey(name)))}`);
      } finally {
        await second.close();
      }
    });

    test('operations are held by the process running them: taken over only from the holder named, once; the old holder writes no more', async () => {
      const bankId = await newBank('owners');
      const op = {
        id: `${bankId}-op`, bankId, kind: 'retain', status: 'running' as const, progress: { done: 0, total: 3 }, input: null, result: null, error: null,
        createdAt: at(1), updatedAt: at(1), owner: 'proc-a',
      };
      await store.createOperation(op);
      assert.equal((await store.unfinishedOperations()).find((o) => o.id === op.id)?.owner, 'proc-a');
      assert.equal(await store.adoptOperation(op.id, 'proc-x', 'proc-b'), false, 'only from the holder it names');
      assert.equal(await store.adoptOperation(op.id, 'proc-a', 'proc-b'), true);
      assert.equal(await store.adoptOperation(op.id, 'proc-a', 'proc-c'), false, 'taken over once');
      assert.equal(await store.updateOperation({ ...op, progress: { done: 2, total: 3 }, updatedAt: at(2) }), false, 'the old holder writes no more');
      assert.equal((await store.getOperation(op.id))?.progress.done, 0);
      assert.equal((await store.getOperation(op.id))?.owner, 'proc-b');
      assert.equal(await store.updateOperation({ ...op, owner: 'proc-b', status: 'succeeded', progress: { done: 3, total: 3 }, updatedAt: at(3) }), true);
      assert.equal((await store.getOperation(op.id))?.status, 'succeeded');
      assert.equal(await store.adoptOperation(op.id, 'proc-b', 'proc-c'), false, 'a finished operation is not taken over');
      const unheld = { ...op, id: `${bankId}-op2`, owner: null };
      await store.createOperation(unheld);
      assert.equal(await store.adoptOperation(unheld.id, null, 'proc-b'), true, 'an operation no process holds is taken over');
    });

    test('dead letters: after maxAttempts a fact leaves the queue until retried', async () => {
      const { bankId, facts } = await seeded('dead');
      const before = await store.backlog(bankId);
      assert.equal(before.waiting, 4);
      assert.equal(await store.hasWaiting(bankId), true);
      assert.equal(before.oldestWaitingAt, facts[0].createdAt);
      for (let attempt = 0; attempt < 2; attempt++) {
        const c = await store.claimUnconsolidated(bankId, 'w', 1, 60_000);
        assert.deepEqual(c?.factIds, [facts[0].id]);
        await store.failClaim(bankId, 'w', c!.factIds, `boom ${attempt}`, 2, 0);
      }
      const dead = await store.listDeadLetters(bankId);
      assert.deepEqual(dead.map((d) => [d.factId, d.error, d.attempts]), [[facts[0].id, 'boom 1', 2]]);
      assert.equal((await store.backlog(bankId)).failed, 1);
      assert.equal((await store.backlog(bankId)).waiting, 3);
      assert.deepEqual((await store.claimUnconsolidated(bankId, 'w', 1, 60_000))?.factIds, [facts[1].id], 'the dead letter is skipped');
      await store.failClaim(bankId, 'w', [facts[1].id], 'later', 5, 60_000);
      assert.equal((await store.claimUnconsolidated(bankId, 'w', 1, 60_000))?.factIds[0], facts[2].id, 'a failed fact waits for its retry time');
      await store.failClaim(bankId, 'w', [facts[2].id], 'release', 5, 0);
      assert.equal(await store.retryDeadLetters(bankId), 1);
      assert.deepEqual(await store.listDeadLetters(bankId), []);
      assert.equal((await store.claimUnconsolidated(bankId, 'w', 1, 60_000))?.factIds[0], facts[0].id, 'retried, it is claimable again');
    });

    test('operations and idempotency keys', async () => {
      const bankId = await newBank('ops');
      const op = operation(bankId, `${bankId}-op1`, 'queued');
      await store.createOperation(op);
      assert.ok((await store.unfinishedOperations()).some((o) => o.id === op.id));
      await store.updateOperation({ ...op, status: 'succeeded', progress: { done: 3, total: 3 }, result: { facts: 2 }, updatedAt: at(2) });
      const got = await store.getOperation(op.id);
      assert.equal(got?.status, 'succeeded');
      assert.deepEqual(got?.progress, { done: 3, total: 3 });
      assert.deepEqual(got?.result, { facts: 2 });
      assert.deepEqual(got?.input, { items: [{ content: 'x' }] });
      assert.ok(!(await store.unfinishedOperations()).some((o) => o.id === op.id));
      assert.equal(await store.getOperation('no-such-op'), null);
      // A conditional update applies only from the statuses given.
      assert.equal(await store.updateOperation({ ...op, status: 'running', updatedAt: at(3) }, ['queued']), false);
      assert.equal((await store.getOperation(op.id))?.status, 'succeeded');
      assert.equal(await store.updateOperation({ ...op, status: 'failed', error: 'late', updatedAt: at(3) }, ['queued', 'succeeded']), true);
      assert.equal((await store.getOperation(op.id))?.error, 'late');

      // A key binds the first operation (stored with it) and its payload hash; later binds get that back.
      const a = operation(bankId, `${bankId}-a`, 'running');
      const bound = await store.bindOperationKey(bankId, 'key-1', 'hash-a', a);
      assert.equal(bound.created, true);
      assert.equal((await store.getOperation(a.id))?.status, 'running', 'bound and stored in one step');
      const b = operation(bankId, `${bankId}-b`, 'running');
      const taken = await store.bindOperationKey(bankId, 'key-1', 'hash-b', b);
      assert.deepEqual([taken.created, taken.operation.id, taken.payloadHash], [false, a.id, 'hash-a']);
      assert.equal(await store.getOperation(b.id), null, 'a refused operation is not stored');
      assert.equal((await store.operationByKey(bankId, 'key-1'))?.id, a.id);
      assert.equal(await store.operationByKey(bankId, 'key-2'), null);
      // Once failed, a retry of the same payload binds the key to a new operation; another payload still may not.
      await store.updateOperation({ ...a, status: 'failed', error: 'boom' });
      assert.equal((await store.bindOperationKey(bankId, 'key-1', 'hash-b', b)).created, false);
      const retried = await store.bindOperationKey(bankId, 'key-1', 'hash-a', b);
      assert.deepEqual([retried.created, retried.operation.id], [true, b.id]);
      assert.equal((await store.operationByKey(bankId, 'key-1'))?.id, b.id);
      // The same key in another bank is another binding; both are found by the key alone.
      const other = await newBank('ops-2');
      assert.equal((await store.bindOperationKey(other, 'key-1', 'hash-a', operation(other, `${other}-c`, 'queued'))).created, true);
      assert.deepEqual(sorted(idsOf(await store.operationsByKey('key-1'))).filter((id) => id.startsWith(B('ops'))), sorted([b.id, `${other}-c`]));
    });

    test('a write records its operation in the same transaction, and is refused once the operation is no longer running', async () => {
      const bankId = await newBank('checkpoint');
      const running = operation(bankId, `${bankId}-op`, 'running');
      await store.createOperation(running);
      const c = chunk(bankId, `${bankId}-d`, `${bankId}-c`, 0, 'Pia repairs clocks in Lyon.');
      const write = itemWrite(bankId, doc(bankId, `${bankId}-d`), [c], [{ fact: fact(bankId, `${bankId}-f`, 'Pia repairs clocks', { chunk: c }), vector: unit(1) }]);
      const checkpoint = { ...running, progress: { done: 1, total: 3 }, result: { facts: 1 }, updatedAt: at(3) };
      await store.writeItem({ ...write, operation: checkpoint });
      const recorded = await store.getOperation(running.id);
      assert.deepEqual([recorded?.status, recorded?.progress, recorded?.result], ['running', { done: 1, total: 3 }, { facts: 1 }]);

      await store.updateOperation({ ...checkpoint, status: 'failed', error: 'stopped' });
      const c2 = chunk(bankId, `${bankId}-d2`, `${bankId}-c2`, 0, 'Pia sails.');
      const late = itemWrite(bankId, doc(bankId, `${bankId}-d2`), [c2], [{ fact: fact(bankId, `${bankId}-f2`, 'Pia sails', { chunk: c2 }), vector: unit(2) }]);
      await assert.rejects(store.writeItem({ ...late, operation: { ...checkpoint, progress: { done: 2, total: 3 } } }), /no longer running|failed/);
      assert.equal(await store.getDocument(bankId, `${bankId}-d2`), null, 'nothing of the refused write');
      assert.deepEqual(await store.getFacts(bankId, [`${bankId}-f2`]), []);
      assert.deepEqual((await store.getOperation(running.id))?.progress, { done: 1, total: 3 });
    });

    test('a bank id outside the one rule is refused; writing into a deleted bank fails as not found', async () => {
      for (const id of ['.', '..', 'a/b', 'bänk', 'x'.repeat(129)]) await assert.rejects(store.createBank(bank(id)), /letters, digits/, id);
      assert.equal(await store.getBank('..'), null);
      const bankId = await newBank('gone');
      await store.deleteBank(bankId);
      const c = chunk(bankId, `${bankId}-d`, `${bankId}-c`, 0, 'Quinn paints.');
      await assert.rejects(store.writeItem(itemWrite(bankId, doc(bankId, `${bankId}-d`), [c], [])), (e: Error & { code?: string }) => e.code === 'not_found');
      await assert.rejects(
        store.writeItem(itemWrite(bankId, doc(bankId, `${bankId}-d`), [c], [{ fact: fact(bankId, `${bankId}-f`, 'Quinn paints', { chunk: c }), vector: unit(1) }])),
        (e: Error & { code?: string }) => e.code === 'not_found',
      );
    });

    test('deleting a bank fails its unfinished operations (their input dropped) and keeps them readable; finished ones go', async () => {
      const bankId = await newBank('del-ops');
      const running = operation(bankId, `${bankId}-run`, 'running');
      const queued = operation(bankId, `${bankId}-queued`, 'queued');
      const done = operation(bankId, `${bankId}-done`, 'succeeded');
      assert.equal((await store.bindOperationKey(bankId, 'nightly', 'h', running)).created, true);
      await store.createOperation(queued);
      await store.createOperation(done);
      await store.deleteBank(bankId);
      for (const id of [running.id, queued.id]) {
        const op = await store.getOperation(id);
        assert.equal(op?.status, 'failed', id);
        assert.match(op?.error ?? '', new RegExp(`bank '${bankId}' was deleted`));
        assert.equal(op?.input, null, 'the content of a deleted bank is not kept');
      }
      assert.equal(await store.getOperation(done.id), null);
      assert.equal((await store.operationByKey(bankId, 'nightly'))?.id, running.id, 'still found by its key');
      assert.ok(!(await store.unfinishedOperations()).some((o) => o.bankId === bankId));
    });

    test('changing embedder: vectors dropped, re-embedded, and a third embedder refused', async () => {
      const { bankId, facts } = await seeded('reembed');
      await store.resetEmbedder(bankId, 'second-embedder');
      assert.equal((await store.getBank(bankId))?.embedder, 'second-embedder');
      assert.deepEqual(await store.vectors.search(bankId, unit(0), 10), []);
      assert.equal((await store.getVectors(bankId, idsOf(facts))).size, 0);
      await store.putVectors(bankId, 'second-embedder', facts.map((f, i) => ({ id: f.id, vector: unit(7 - i) })));
      assert.equal((await store.vectors.search(bankId, unit(7), 1))[0].id, facts[0].id);
      await assert.rejects(store.putVectors(bankId, 'third-embedder', [{ id: facts[0].id, vector: unit(0) }]));
      await assert.rejects(store.putVectors(bankId, 'second-embedder', [{ id: `${bankId}-nope`, vector: unit(0) }]));
    });

    test('restart: closing and opening again keeps everything', async () => {
      const { bankId, facts } = await seeded('restart');
      await store.createOperation({
        id: `${bankId}-op`, bankId, kind: 'retain', status: 'running', progress: { done: 1, total: 2 }, input: null, result: null, error: null, createdAt: at(1), updatedAt: at(1),
      });
      await store.close();
      store = await harness.open();
      assert.equal((await store.getBank(bankId))?.embedder, EMBEDDER);
      assert.equal((await store.listFacts(bankId, { limit: 10, offset: 0 })).total, 4);
      assert.equal((await store.vectors.search(bankId, unit(2), 1))[0].id, facts[2].id);
      assert.equal((await store.keywords.searchFacts(bankId, 'violin', 1))[0].id, facts[2].id);
      assert.equal((await store.graph.linksOf(bankId, [facts[0].id])).length, 1);
      assert.ok((await store.unfinishedOperations()).some((o) => o.id === `${bankId}-op`));
      assert.equal((await store.backlog(bankId)).waiting, 4);
    });
  });
}
