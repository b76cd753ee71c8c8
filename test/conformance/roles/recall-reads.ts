// Store conformance, RecallReads role: the indexes and the reads of facts, entities, sessions and time ranges.
import assert from 'node:assert/strict';
import { beforeEach, describe, test } from 'node:test';
import type { Fact, FactLink } from '../../../src/core/types.ts';
import type { FactFilter, MemoryStore } from '../../../src/store/ports.ts';
import { type ChunkFacts, type Conformance, idsOf, observationWrite, sorted } from '../context.ts';
import { at, bank, chunk, DIM, doc, fact, itemWrite, observation, unit } from '../fixtures.ts';

export function recallReadsConformance(ctx: Conformance): void {
  describe('RecallReads', () => {
    let store: MemoryStore;
    const { B, created, newBank, seeded } = ctx;
    beforeEach(() => {
      store = ctx.store;
    });

    /** A bank of `count` near-copies of one sentence in one chunk, written with the links `linksOf` draws between them. */
    async function copies(
      name: string,
      count: number,
      linksOf: (bankId: string, facts: Fact[]) => FactLink[],
    ): Promise<{ bankId: string; facts: Fact[] }> {
      const bankId = await newBank(name);
      const c = chunk(bankId, `${bankId}-d`, `${bankId}-c`, 0, 'Near-copies of one sentence.');
      const facts = Array.from({ length: count }, (_, i) =>
        fact(bankId, `${bankId}-f${i}`, `copy ${i}`, { chunk: c, createdAt: at(3, i) }),
      );
      await store.writeItem(
        itemWrite(
          bankId,
          doc(bankId, `${bankId}-d`),
          [c],
          facts.map((f, i) => ({ fact: f, vector: unit(i % DIM) })),
          { links: linksOf(bankId, facts) },
        ),
      );
      return { bankId, facts };
    }

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

    test("a fact's facets are its filter fields and source, in the order asked, with entity ids when asked; a chunk's document", async () => {
      const { bankId, facts } = await seeded('facets');
      const asked = [facts[2].id, `${bankId}-no-such-fact`, facts[0].id, facts[3].id];
      const whole = new Map((await store.getFacts(bankId, asked)).map((f) => [f.id, f]));
      for (const entities of [false, true]) {
        const facets = await store.factFacets(bankId, asked, entities);
        assert.deepEqual(idsOf(facets), [facts[2].id, facts[0].id, facts[3].id], 'existing ones, in the order asked');
        for (const f of facets) {
          const w = whole.get(f.id);
          assert.ok(w);
          const { kind, tags, stance, status, occurredStart, occurredEnd, mentionedAt, validFrom, validTo, createdAt, supersededAt } = w;
          assert.deepEqual(
            { kind, tags, stance, status, occurredStart, occurredEnd, mentionedAt, validFrom, validTo, createdAt, supersededAt },
            {
              kind: f.kind,
              tags: f.tags,
              stance: f.stance,
              status: f.status,
              occurredStart: f.occurredStart,
              occurredEnd: f.occurredEnd,
              mentionedAt: f.mentionedAt,
              validFrom: f.validFrom,
              validTo: f.validTo,
              createdAt: f.createdAt,
              supersededAt: f.supersededAt,
            },
          );
          assert.equal(f.source?.chunkId ?? null, w.source?.chunkId ?? null);
          assert.equal(f.source?.documentId ?? null, w.source?.documentId ?? null);
          assert.equal(f.source?.start ?? null, w.source?.start ?? null);
          if (entities) assert.deepEqual(sorted(f.entities ?? []), sorted(w.entities));
        }
      }
      assert.deepEqual(await store.factFacets(B('no-such-bank'), asked, true), [], "another bank's ids read nothing");
    });

    test('vector searches of several vectors keep only hits scoring at least minScore when one is given', async () => {
      const { bankId, facts } = await seeded('min-score');
      // unit(i) is fact i's own vector: itself scores 1, unit(i + 1) (which it leans towards) about 0.2.
      const queries = [unit(0), unit(1), unit(5)];
      const all = await store.vectors.searchMany(bankId, queries, 2);
      assert.deepEqual(
        all.map((hits) => hits.length),
        [2, 2, 2],
      );
      const near = await store.vectors.searchMany(bankId, queries, 2, {}, 0.9);
      assert.deepEqual(
        near.map((hits) => idsOf(hits)),
        [[facts[0].id], [facts[1].id], []],
      );
      for (const hits of near) for (const h of hits) assert.ok(h.score >= 0.9);
      assert.deepEqual(await store.vectors.searchMany(bankId, queries, 2, { kinds: ['experience'] }, 0.9), [[], [], []]);
    });

    test('the count of active facts is the total of a listing without filters, through every kind of write', async () => {
      const { bankId, facts } = await seeded('active-count');
      const expectCount = async (n: number, why: string): Promise<void> => {
        assert.equal((await store.listFacts(bankId, { limit: 0, offset: 0 })).total, n, `listing: ${why}`);
        assert.equal(await store.countActiveFacts(bankId), n, why);
      };
      await expectCount(4, 'after a write');
      assert.equal(await store.countActiveFacts(B('no-such-bank')), 0);
      const o = observation(bankId, `${bankId}-o1`, 'Alice lives in Berlin');
      await store.applyObservations(observationWrite(bankId, { observations: [o], vectors: [{ id: o.id, vector: unit(3) }] }));
      await expectCount(5, 'an observation is a fact');
      await store.applyObservations(observationWrite(bankId, { supersede: [{ factId: facts[0].id, by: facts[1].id, at: at(6) }] }));
      await expectCount(4, 'a superseded fact is not active');
      await store.deleteFacts(bankId, [facts[1].id], 'wrong');
      await expectCount(4, 'deleting the superseding fact makes the superseded one active again');
      await store.applyObservations(observationWrite(bankId, { removeObservationIds: [o.id] }));
      await expectCount(3, 'a removed observation');
      await store.deleteDocument(bankId, `${bankId}-d1`, 'gone');
      await expectCount(0, 'the document deleted with its facts');
      await store.deleteBank(bankId);
      await store.createBank(bank(bankId));
      await expectCount(0, 'a bank created again under the id of a deleted one');
    });

    test("a fact's context is searched by keyword beside its text, and its stance is a filter", async () => {
      const { bankId } = await seeded('context');
      const c = chunk(bankId, `${bankId}-d3`, `${bankId}-c7`, 0, '## Flaky Cypress suite\n\nIt fails once in five runs.');
      const quiet = fact(bankId, `${bankId}-f7`, 'It fails once in five runs', { chunk: c, context: 'Flaky Cypress suite' });
      const rule = fact(bankId, `${bankId}-f8`, 'Always answer with a code example', { chunk: c, stance: 'instruction' });
      await store.writeItem(
        itemWrite(
          bankId,
          doc(bankId, `${bankId}-d3`),
          [c],
          [
            { fact: quiet, vector: unit(5) },
            { fact: rule, vector: unit(6) },
          ],
        ),
      );
      assert.deepEqual(idsOf(await store.keywords.searchFacts(bankId, 'cypress', 10)), [quiet.id], 'found by a word of its context only');
      const [read] = await store.getFacts(bankId, [quiet.id]);
      assert.equal(read.text, 'It fails once in five runs');
      assert.equal(read.context, 'Flaky Cypress suite');
      // Asked for texts, a hit found by its context carries its own text.
      assert.deepEqual(
        (await store.keywords.searchFacts(bankId, 'cypress', 10, {}, { texts: true })).map((h) => [h.id, h.text]),
        [[quiet.id, 'It fails once in five runs']],
      );
      assert.deepEqual(await store.keywords.searchFacts(B('other-bank'), 'cypress', 10, {}, { texts: true }), [], "not another bank's");
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
      assert.deepEqual(
        sorted(idsOf(await store.vectors.search(bankId, unit(0), 10, { tags: ['work'] }))),
        sorted([facts[1].id, facts[3].id]),
      );
      assert.deepEqual(idsOf(await store.vectors.search(bankId, unit(0), 10, { tags: ['work', 'move'] })), [facts[3].id]);
      assert.deepEqual(
        sorted(idsOf(await store.vectors.search(bankId, unit(0), 10, { recordedBefore: at(3, 2) }))),
        sorted([facts[0].id, facts[1].id]),
      );

      await store.applyObservations(observationWrite(bankId, { supersede: [{ factId: facts[0].id, by: facts[1].id, at: at(6) }] }));
      assert.ok(!idsOf(await store.vectors.search(bankId, unit(0), 10)).includes(facts[0].id), 'superseded facts are not current');
      assert.equal((await store.vectors.search(bankId, unit(0), 1, { includeSuperseded: true }))[0].id, facts[0].id);
      assert.ok(
        idsOf(await store.vectors.search(bankId, unit(0), 10, { recordedBefore: at(5) })).includes(facts[0].id),
        'as of before it was superseded',
      );
      const [superseded] = await store.getFacts(bankId, [facts[0].id]);
      assert.equal(superseded.status, 'superseded');
      assert.equal(superseded.supersededBy, facts[1].id);
      assert.equal(superseded.supersededAt, at(6));
      assert.equal(superseded.validTo, at(6));
      assert.deepEqual(await store.vectors.search(B('no-such-bank'), unit(0), 3), []);
    });

    test('vector search of many vectors at once: each answer what its own search gives, in order', async () => {
      const { bankId } = await seeded('vectors-many');
      const queries = [unit(1), unit(0), unit(1), unit(2)];
      for (const filter of [{}, { kinds: ['world' as const] }, { tags: ['work'] }, { recordedBefore: at(3, 2) }]) {
        const many = await store.vectors.searchMany(bankId, queries, 2, filter);
        assert.equal(many.length, queries.length);
        for (const [i, q] of queries.entries()) assert.deepEqual(many[i], await store.vectors.search(bankId, q, 2, filter));
      }
      assert.deepEqual(await store.vectors.searchMany(bankId, [], 2), []);
      assert.deepEqual(await store.vectors.searchMany(B('no-such-bank'), [unit(0), unit(1)], 3), [[], []]);
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
      const chunkHits = await store.keywords.searchChunks(bankId, 'violin sister', 10);
      assert.deepEqual(idsOf(chunkHits), [`${bankId}-c2`]);
      const [c2] = await store.getChunks(bankId, [`${bankId}-c2`]);
      assert.equal(chunkHits[0].documentId, c2.documentId, "a chunk's hit names its document");
      // Asked for them, fact hits carry their texts; else not.
      const withTexts = await store.keywords.searchFacts(bankId, 'Where does Anna live? Vienna', 10, {}, { texts: true });
      assert.deepEqual(
        withTexts.map((h) => h.text),
        (await store.getFacts(bankId, idsOf(withTexts))).map((f) => f.text),
      );
      assert.deepEqual(idsOf(withTexts), idsOf(hits));
      assert.ok(hits.every((h) => h.text === undefined));
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
      // Mentions of some entities by some facts: each pair once, by fact id then entity id, as the facts' entities say.
      const asked = [`${bankId}-e-alice`, `${bankId}-e-anna`];
      const all = await store.getFacts(bankId, idsOf(facts));
      const expected = all
        .flatMap((f) => f.entities.filter((e) => asked.includes(e)).map((entityId) => ({ factId: f.id, entityId })))
        .sort((a, b) => (a.factId < b.factId ? -1 : a.factId > b.factId ? 1 : a.entityId < b.entityId ? -1 : 1));
      assert.ok(expected.length >= 3, 'the seeded facts mention them');
      assert.deepEqual(await store.graph.mentionsOf(bankId, [...idsOf(facts), 'no-such-fact'], [...asked, 'no-such-entity']), expected);
      assert.deepEqual(await store.graph.mentionsOf(bankId, [facts[2].id], [`${bankId}-e-anna`]), [
        { factId: facts[2].id, entityId: `${bankId}-e-anna` },
      ]);
      assert.deepEqual(await store.graph.mentionsOf(bankId, [], asked), []);
      assert.deepEqual(await store.graph.mentionsOf(B('other-bank'), idsOf(facts), asked), [], 'another bank sees none');
      const links = await store.graph.linksOf(bankId, [facts[1].id]);
      assert.deepEqual(
        links.map((l) => `${l.from}>${l.to}:${l.type}`).sort(),
        [`${facts[1].id}>${facts[0].id}:temporal`, `${facts[1].id}>${facts[2].id}:causal`].sort(),
      );
      assert.equal(links.find((l) => l.type === 'causal')?.weight, 0.5);
    });

    test('graph: a limit per fact keeps each fact its strongest links, both ways', async () => {
      // Ten links into the hub (weights 0.50-0.95), one out of it (0.97), and one between two other facts.
      const { bankId, facts } = await copies('hub', 12, (bankId, facts) => [
        ...facts.slice(1, 11).map((f, i): FactLink => ({ bankId, from: f.id, to: facts[0].id, type: 'semantic', weight: 0.5 + i * 0.05 })),
        { bankId, from: facts[0].id, to: facts[11].id, type: 'semantic', weight: 0.97 },
        { bankId, from: facts[1].id, to: facts[2].id, type: 'temporal', weight: 1 },
      ]);
      const [hub, other] = [facts[0].id, facts[11].id];
      const all = await store.graph.linksOf(bankId, [hub]);
      assert.equal(all.length, 11, 'without a limit, every link of the hub');
      const strongest = await store.graph.linksOf(bankId, [hub], { limitPerFact: 3 });
      assert.deepEqual(
        strongest.map((l) => `${l.from}>${l.to}:${l.weight.toFixed(2)}`).sort(),
        [`${hub}>${other}:0.97`, `${hub}>${facts[10].id}:0.95`, `${hub}>${facts[9].id}:0.90`].sort(),
        'seen from the hub, the three strongest of both directions',
      );
      const two = await store.graph.linksOf(bankId, [hub, facts[1].id], { limitPerFact: 1 });
      assert.deepEqual(two.map((l) => `${l.from}>${l.to}`).sort(), [`${hub}>${other}`, `${facts[1].id}>${facts[2].id}`].sort());
      const temporal = await store.graph.linksOf(bankId, [hub, facts[1].id, facts[2].id], { types: ['temporal'] });
      assert.deepEqual(
        temporal.map((l) => `${l.from}>${l.to}`).sort(),
        [`${facts[1].id}>${facts[2].id}`, `${facts[2].id}>${facts[1].id}`].sort(),
      );
      assert.deepEqual(await store.graph.linksOf(bankId, [hub], { types: ['causal'], limitPerFact: 5 }), []);
      assert.equal((await store.graph.linksOf(bankId, [hub], { types: ['semantic'], limitPerFact: 20 })).length, 11);
    });

    test('graph: a fact with hundreds of links keeps its strongest too, of the types asked', async () => {
      // 300 semantic links into the hub (weights 0.300-0.599), the strongest into it a temporal one (0.95), and one
      // semantic link out of it (0.90).
      const { bankId, facts } = await copies('big-hub', 302, (bankId, facts) => [
        ...facts
          .slice(1, 301)
          .map((f, i): FactLink => ({ bankId, from: f.id, to: facts[0].id, type: 'semantic', weight: 0.3 + i * 0.001 })),
        { bankId, from: facts[301].id, to: facts[0].id, type: 'temporal', weight: 0.95 },
        { bankId, from: facts[0].id, to: facts[1].id, type: 'semantic', weight: 0.9 },
      ]);
      const hub = facts[0].id;
      const seen = (ls: FactLink[]): string[] => ls.map((l) => `${l.to}:${l.type}:${l.weight.toFixed(3)}`);
      assert.deepEqual(seen(await store.graph.linksOf(bankId, [hub], { limitPerFact: 4 })), [
        `${facts[301].id}:temporal:0.950`,
        `${facts[1].id}:semantic:0.900`,
        `${facts[300].id}:semantic:0.599`,
        `${facts[299].id}:semantic:0.598`,
      ]);
      assert.deepEqual(seen(await store.graph.linksOf(bankId, [hub], { types: ['semantic'], limitPerFact: 2 })), [
        `${facts[1].id}:semantic:0.900`,
        `${facts[300].id}:semantic:0.599`,
      ]);
      assert.equal((await store.graph.linksOf(bankId, [hub], { types: ['semantic'], limitPerFact: 1000 })).length, 301);
      assert.deepEqual(seen(await store.graph.linksOf(bankId, [facts[5].id], { limitPerFact: 3 })), [`${hub}:semantic:0.304`]);
    });

    test('factsInTimeRange: overlapping facts, nearest the middle first', async () => {
      const { bankId, facts } = await seeded('time');
      const inRange = await store.factsInTimeRange(bankId, at(19), at(27), 10);
      assert.deepEqual(idsOf(inRange), [facts[3].id, facts[1].id], 'the span 25-28 overlaps, and its start is nearest day 23');
      assert.deepEqual(idsOf(await store.factsInTimeRange(bankId, at(9), at(11), 10)), [facts[0].id]);
      assert.deepEqual(
        idsOf(await store.factsInTimeRange(bankId, at(1, 0), at(2, 23), 10)),
        [facts[2].id],
        'mentioned time when nothing occurred',
      );
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
      if (cf.factIdsOfChunks)
        reads.push([
          'factIdsOfChunks',
          async (filter) => (await cf.factIdsOfChunks!(bankId, [`${bankId}-c1`, `${bankId}-c2`], filter)).map((x) => x.factId),
        ]);
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
        const chunks = days.map((day, i) => ({
          ...chunk(bankId, d(docId), d(`${docId}-c${i}-${day}`), i, `Said on day ${day}.`),
          timestamp: at(day),
          session,
        }));
        const facts = chunks.map((c, i) =>
          fact(bankId, d(`${docId}-f${i}-${days[i]}`), `fact of ${docId} on day ${days[i]}`, {
            chunk: c,
            kind: i === 0 ? 'experience' : 'world',
          }),
        );
        await store.writeItem(
          itemWrite(
            bankId,
            { ...doc(bankId, d(docId), `hash-${days.join('-')}`), createdAt: at(createdDay) },
            chunks,
            facts.map((f, i) => ({ fact: f, vector: unit(i) })),
          ),
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
      assert.deepEqual(
        sessions.map((s) => s.id),
        [d('s1'), d('s2'), d('s3'), 'x', d('tie-a'), d('tie-b')],
        'by time; a chunk without a session is in none',
      );
      assert.deepEqual(
        sessions.map((s) => s.ordinal),
        [1, 2, 3, 4, 5, 6],
      );
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
      assert.deepEqual(
        after.slice(0, 2).map((s) => [s.id, s.ordinal]),
        [
          [d('s3'), 1],
          [d('s2'), 2],
        ],
      );
      assert.deepEqual(await store.factsOfSessions(bankId, [d('s1')], 10), []);
      assert.deepEqual(await store.sessions(B('no-such-bank')), []);
    });

    test("banks are isolated in keyword ranking: another bank's content changes neither the hits nor their scores", async () => {
      const { bankId } = await seeded('kw-iso-a');
      const queries = ['Where does Anna live? Vienna', 'Alice moved to Berlin', 'violin sister startup'];
      const search = (): Promise<unknown[]> =>
        Promise.all(queries.flatMap((q) => [store.keywords.searchFacts(bankId, q, 10), store.keywords.searchChunks(bankId, q, 10)]));
      const before = await search();
      assert.ok(
        before.every((hits) => (hits as unknown[]).length > 0),
        'every query finds something in the bank',
      );

      // Another bank, much larger, full of the same words in texts of other lengths.
      const other = await newBank('kw-iso-b');
      const words = ['Anna', 'lives', 'Vienna', 'Alice', 'moved', 'Berlin', 'violin', 'sister', 'startup', 'robotics'];
      for (let d = 0; d < 4; d++) {
        const docId = `${other}-d${d}`;
        const chunks = Array.from({ length: 40 }, (_, i) => {
          const text = `${words.slice(0, 1 + ((d * 40 + i) % words.length)).join(' ')} note ${d}-${i}`;
          return chunk(other, docId, `${docId}-c${i}`, i, text, i % 2 ? 'Alice' : 'Anna');
        });
        const facts = chunks.map((c, i) => ({
          fact: fact(other, `${docId}-f${i}`, `${c.text} again and again`, { chunk: c }),
          vector: unit(i),
        }));
        await store.writeItem(itemWrite(other, doc(other, docId), chunks, facts));
      }
      assert.equal((await store.keywords.searchFacts(other, 'Vienna', 500)).length, 128, 'the other bank is indexed');
      assert.deepEqual(await search(), before, 'the same ids with the same scores');
      await store.deleteBank(other);
      created.delete(other);
      assert.deepEqual(await search(), before, 'and after the other bank is deleted');
    });
  });
}
