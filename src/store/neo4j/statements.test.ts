// The server store's Cypher, checked without a server: every statement the adapter can send is parsed and
// semantically analysed by Neo4j's own language support (syntax, undefined variables, parameters missing), every
// parameter it names is given and every one given is used, input values never reach the statement text, counts
// travel as integers, and the filter, Lucene and migration builders produce what they should.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import neo4j from 'neo4j-driver';
import type { Chunk, DocumentRecord, Entity, Fact, Observation, Operation } from '../../core/types.ts';
import { factCondition } from './filter.ts';
import { lintStatement, lintStatements } from './lint.ts';
import { readMigrations, splitCypher } from './migrate.ts';
import { compact, factContent, factLifecycle } from './props.ts';
import { toFact } from './rows.ts';
import type { Statement } from './statement.ts';
import * as del from './statements/deletes.ts';
import * as items from './statements/items.ts';
import * as pending from './statements/pending.ts';
import * as reads from './statements/reads.ts';
import * as rec from './statements/records.ts';
import * as q from './statements/queue.ts';
import * as search from './statements/search.ts';

/** A value that would break out of a string literal or a clause if it were spliced into the text. */
const EVIL = "x' }) DETACH DELETE n //";
const B = `bank-${EVIL}`;
const NOW = '2024-05-01T10:00:00.000Z';

const fact: Fact = {
  id: `fct-${EVIL}`, bankId: B, kind: 'world', text: `Alice moved to Berlin ${EVIL}`, occurredStart: '2023-06-01T00:00:00.000Z', occurredEnd: null,
  mentionedAt: '2023-06-14T10:00:00.000Z', entities: ['ent-1', 'ent-2'],
  source: { documentId: 'doc-1', chunkId: 'chk-1', itemId: 'itm-1', start: 0, end: 20 }, speaker: 'Alice', metadata: { turn: 't1' }, tags: ['work'],
  status: 'active', validFrom: '2023-06-01T00:00:00.000Z', validTo: null, supersededBy: null, supersededAt: null, consolidatedAt: null,
  createdAt: NOW, updatedAt: NOW,
};
const observation: Observation = { ...fact, id: 'obs-1', kind: 'observation', source: null, proofCount: 1, consolidatedAt: NOW };
const chunk: Chunk = {
  id: 'chk-1', bankId: B, documentId: 'doc-1', index: 0, itemId: 'itm-1', text: 'I moved to Berlin.', contentHash: 'h', speaker: 'Alice',
  timestamp: NOW, context: null, metadata: {}, tags: [],
};
const document: DocumentRecord = { id: 'doc-1', bankId: B, contentHash: 'hash-1', metadata: {}, tags: [], createdAt: NOW, updatedAt: NOW };
const entity: Entity = { id: 'ent-1', bankId: B, name: 'Alice', aliases: ['Al'], type: 'person', mentionCount: 2, firstSeen: NOW, lastSeen: NOW };
const operation: Operation = {
  id: 'op-1', bankId: B, kind: 'retain', status: 'running', progress: { done: 1, total: 2 }, input: { items: [] }, result: null, error: null,
  createdAt: NOW, updatedAt: NOW,
};
const vector = new Float32Array([0.6, 0.8]);
const filterAll = { kinds: ['world' as const], tags: [EVIL], recordedBefore: NOW };

/** Every statement the adapter sends, built from sample inputs (with hostile strings where input reaches them). */
function catalogue(): Array<[string, Statement]> {
  const out: Array<[string, Statement]> = [];
  const add = (name: string, s: Statement | Statement[]): void => {
    (Array.isArray(s) ? s : [s]).forEach((x, i) => out.push([Array.isArray(s) ? `${name}[${i}]` : name, x]));
  };
  const bank = { id: B, name: EVIL, mission: EVIL, config: { retainMission: EVIL }, embedder: null, createdAt: NOW, updatedAt: NOW };
  add('createBank', rec.createBank(bank));
  add('getBank', rec.getBank(B));
  add('listBanks', rec.listBanks());
  add('updateBank', rec.updateBank(bank));
  add('lockBank', rec.lockBank(B, NOW));
  add('setEmbedder', rec.setEmbedder(B, 'glove'));
  add('createOperation', rec.createOperation(operation));
  add('updateOperation', rec.updateOperation(operation));
  add('getOperation', rec.getOperation('op-1'));
  add('unfinishedOperations', rec.unfinishedOperations());
  add('operationByKey', rec.operationByKey(B, EVIL));
  add('setOperationKey', rec.setOperationKey(B, EVIL, 'op-1'));
  add('createTombstones', rec.createTombstones([{ id: 't', bankId: B, kind: 'fact', targetId: 'f', reason: EVIL, at: NOW }]));
  add('listTombstones', rec.listTombstones(B, 10));

  const staging = { pending: true, now: NOW };
  add('upsertDocument', items.upsertDocument(document, staging));
  add('deleteFactsOfChunks', items.deleteFactsOfChunks(B, ['chk-1'], false));
  add('deleteChunks', items.deleteChunks(B, ['chk-1']));
  add('upsertChunks', items.upsertChunks([chunk], staging));
  add('upsertEntities', items.upsertEntities([entity]));
  add('upsertEntityKeys', items.upsertEntityKeys(B, [entity]));
  add('upsertFacts', items.upsertFacts(B, [{ fact, vector }], staging));
  add('replaceMentions', items.replaceMentions(B, [fact]));
  add('upsertLinks', items.upsertLinks(B, [{ bankId: B, from: 'a', to: 'b', type: 'temporal', weight: 0.8 }]));
  add('activate', items.activate(B, ['f'], ['c'], { id: 'doc-1', hash: 'hash-1' }));
  add('pruneEntities', items.pruneEntities(B));
  add('pointSources', items.pointSources(B, ['f']));
  add('stageVectors', items.stageVectors(B, [{ id: 'f', vector }], NOW));
  add('activateVectors', items.activateVectors(B, ['f']));
  add('dropStagedVectors', items.dropStagedVectors(B));

  add('getDocument', reads.getDocument(B, EVIL));
  add('listDocuments', reads.listDocuments(B, 10, 5));
  add('listChunks', reads.listChunks(B, 'doc-1'));
  add('getChunks', reads.getChunks(B, ['c']));
  add('getFacts', reads.getFacts(B, ['f']));
  const listQuery = { limit: 10, offset: 0, documentId: 'doc-1', entityId: 'ent-1', ...filterAll };
  add('countFacts', reads.countFacts(B, listQuery));
  add('listFacts', reads.listFacts(B, listQuery));
  add('factsInTimeRange', reads.factsInTimeRange(B, '2023-01-01T00:00:00Z', '2023-12-31T00:00:00Z', 5, filterAll));
  add('factIdsOfChunks', reads.factIdsOfChunks(B, ['c'], filterAll));
  add('getEntities', reads.getEntities(B, ['e']));
  add('listEntities', reads.listEntities(B, 10, 0));
  add('entitiesByKeys', reads.entitiesByKeys(B, ['alice']));
  add('getObservations', reads.getObservations(B, ['o']));
  add('evidenceOf', reads.evidenceOf(B, 'o'));
  add('observationsOfFact', reads.observationsOfFact(B, 'f'));
  add('historyOf', reads.historyOf(B, 'o'));
  add('listLinks', reads.listLinks(B, 10, 0));

  add('searchFacts', search.searchFacts(B, '"alice"', 10, filterAll));
  add('searchChunks', search.searchChunks(B, '"alice"', 10));
  add('factsOfEntities', search.factsOfEntities(B, ['e'], 5));
  add('linksOf', search.linksOf(B, ['f']));
  add('confirmFacts', search.confirmFacts(B, ['f'], filterAll));

  add('otherLiveLease', q.otherLiveLease(B, EVIL, NOW));
  add('claimFacts', q.claimFacts(B, EVIL, 16, NOW, NOW));
  add('heldFacts', q.heldFacts(EVIL, ['f']));
  add('observationVersions', q.observationVersions(B, ['o']));
  add('upsertObservations', q.upsertObservations(B, [{ observation, vector }], NOW));
  add('upsertEvidence', q.upsertEvidence(B, [{ observationId: 'o', factId: 'f', role: 'supports', createdAt: NOW }]));
  add('createRevisions', q.createRevisions(B, [{ id: 'r', observationId: 'o', oldText: null, newText: EVIL, factIds: ['f'], reason: 'created', at: NOW }]));
  add('supersede', q.supersede(B, [{ factId: 'f', by: 'g', at: NOW }]));
  add('removeObservations', q.removeObservations(B, ['o']));
  add('markConsolidated', q.markConsolidated(B, ['f'], NOW));
  add('activateObservations', q.activateObservations(B, ['o']));
  add('failClaim', q.failClaim(B, EVIL, ['f'], EVIL, 5, NOW));
  add('deadLetters', q.deadLetters(B));
  add('retryDeadLetters', q.retryDeadLetters(B, ['f']));
  add('backlog', q.backlog(B));
  add('banksWithBacklog', q.banksWithBacklog());

  add('factKinds', del.factKinds(B, ['f']));
  add('factsOfDocument', del.factsOfDocument(B, 'doc-1'));
  add('documentExists', del.documentExists(B, 'doc-1'));
  add('observationsCiting', del.observationsCiting(B, ['f']));
  add('forgetFacts', del.forgetFacts(B, ['f'], ['o'], NOW));
  add('deleteDocumentChunks', del.deleteDocumentChunks(B, 'doc-1'));
  add('dropBank', del.dropBank(B));
  for (const label of del.BANK_LABELS) {
    add(`sweepBank(${label})`, del.sweepBank(label, B, 1000));
    add(`orphanBankIds(${label})`, del.orphanBankIds(label));
  }

  add('stalePendingDocuments', pending.stalePendingDocuments(NOW, 100));
  add('pendingFactsOfDocument', pending.pendingFactsOfDocument(B, 'doc-1'));
  add('pendingChunksOfDocument', pending.pendingChunksOfDocument(B, 'doc-1'));
  add('stalePendingFacts', pending.stalePendingFacts(NOW, 100));
  add('rollbackDocument', pending.rollbackDocument(B, 'doc-1'));
  add('pointOwners', pending.pointOwners(['f']));
  add('factsExpectingPoints', pending.factsExpectingPoints(B, 0, 100));
  add('markNeedsEmbedding', pending.markNeedsEmbedding(B, ['f']));
  add('clearNeedsEmbedding', pending.clearNeedsEmbedding(B, ['f']));
  return out;
}

/** Parameter names used in a statement text ($name). */
const usedParams = (text: string): Set<string> => new Set([...text.matchAll(/\$([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]));

/**
 * One parallel analysis of every statement and migration (a quarter of a second each). The per-label sweeps differ
 * only in their constant label, so one of each kind is analysed.
 */
const linted = (async () => {
  const statements = catalogue().filter(([name]) => !/^(sweepBank|orphanBankIds)\((?!Fact)/.test(name));
  const migrations = readMigrations().flatMap((f) => f.statements.map((text): [string, Statement] => [f.name, { text, params: {} }]));
  const all = await lintStatements([...statements, ...migrations].map(([, s]) => s));
  return { statements, results: all.slice(0, statements.length), migrations, migrationResults: all.slice(statements.length) };
})();

describe('server store Cypher', () => {
  const statements = catalogue();

  test('every statement parses and passes Neo4j semantic analysis', async () => {
    const { statements: analysed, results } = await linted;
    const problems = analysed.flatMap(([name], i) => results[i].map((p) => `${name}: ${p.severity}: ${p.message}`));
    assert.deepEqual(problems, []);
  });

  test('the analyser does catch broken Cypher (so the test above can fail)', () => {
    assert.ok(lintStatement({ text: 'MATCH (f:Fact) WHERE f.id = $id RETURN g', params: { id: 'x' } }).some((p) => p.severity === 'error'));
    assert.ok(lintStatement({ text: 'MATCH (f:Fact) RETURN f.id AS id ORDER BY', params: {} }).some((p) => p.severity === 'error'));
    assert.ok(lintStatement({ text: 'MATCH (f:Fact {id: $id}) RETURN f', params: {} }).some((p) => /\$id/.test(p.message)));
  });

  test('every parameter named is given, and every one given is named', () => {
    for (const [name, s] of statements) {
      const used = usedParams(s.text);
      assert.deepEqual([...used].sort(), Object.keys(s.params).sort(), name);
    }
  });

  test('input values never reach the statement text', () => {
    for (const [name, s] of statements) {
      assert.ok(!s.text.includes(EVIL), `${name} has an input value in its text`);
      assert.ok(!s.text.includes('bank-x'), `${name} has the bank id in its text`);
    }
  });

  test('LIMIT, SKIP and list slices take integer parameters', () => {
    for (const [name, s] of statements)
      for (const m of s.text.matchAll(/(?:LIMIT|SKIP|\.\.)\s*\$([A-Za-z]+)/g))
        assert.ok(neo4j.isInt(s.params[m[1]]), `${name}: $${m[1]} is not an integer`);
  });

  test('labels and relationship types are constants of the model', () => {
    const labels = new Set(['Bank', 'Document', 'Chunk', 'Fact', 'Entity', 'EntityKey', 'Revision', 'Operation', 'OperationKey', 'Tombstone', 'Migration']);
    const types = new Set(['MENTIONS', 'LINK', 'EVIDENCE']);
    for (const [name, s] of statements) {
      for (const m of s.text.matchAll(/\(\w*:(\w+)/g)) assert.ok(labels.has(m[1]), `${name}: label ${m[1]}`);
      for (const m of s.text.matchAll(/\[\w*:(\w+)/g)) assert.ok(types.has(m[1]), `${name}: relationship ${m[1]}`);
    }
  });
});

describe('fact filter condition', () => {
  test('default: visible and active only', () => {
    const c = factCondition({}, 'f');
    assert.equal(c.text, "coalesce(f.pending, false) = false AND f.status = 'active'");
    assert.deepEqual(c.params, {});
  });

  test('kinds, tags (all of them) and superseded facts included', () => {
    const c = factCondition({ kinds: ['world', 'experience'], tags: ['a', 'b'], includeSuperseded: true }, 'x');
    assert.match(c.text, /x\.kind IN \$filterKinds/);
    assert.match(c.text, /all\(tag IN \$filterTags WHERE tag IN x\.tags\)/);
    assert.doesNotMatch(c.text, /status/);
    assert.deepEqual(c.params, { filterKinds: ['world', 'experience'], filterTags: ['a', 'b'] });
  });

  test('as of a past instant: recorded by then and not yet superseded then', () => {
    const c = factCondition({ recordedBefore: NOW }, 'f');
    assert.match(c.text, /f\.createdAt <= \$filterRecordedBefore/);
    assert.match(c.text, /\(f\.supersededAt IS NULL OR f\.supersededAt > \$filterRecordedBefore\)/);
    assert.doesNotMatch(c.text, /f\.status/);
    assert.equal(c.params.filterRecordedBefore, NOW);
  });

  test('refuses a variable name that is not one', () => {
    assert.throws(() => factCondition({}, 'f) DETACH DELETE (n'));
  });
});

describe('Lucene query of the keyword arm', () => {
  test('ORs the quoted content words, without stopwords or repeats', () => {
    assert.equal(search.luceneQuery('Where did Alice move to? Alice!'), '"alice" OR "move"');
  });

  test('no content words: no query', () => {
    assert.equal(search.luceneQuery('what is the of'), null);
    assert.equal(search.luceneQuery('?!'), null);
  });

  test('Lucene syntax in the query is only ever words', () => {
    const lucene = search.luceneQuery('title:(secret) AND "quoted" OR path\\x* ~2 [a TO z]') ?? '';
    for (const term of lucene.split(' OR ')) assert.match(term, /^"[\p{L}\p{N}]+"$/u);
  });
});

describe('Neo4j migrations', () => {
  test('splitCypher drops comment lines and splits at line-ending semicolons', () => {
    const text = '// header\nCREATE INDEX a IF NOT EXISTS\n  FOR (n:Fact) ON (n.id);\n\n// next\nCREATE INDEX b IF NOT EXISTS FOR (n:Fact) ON (n.x);\n';
    assert.deepEqual(splitCypher(text), ['CREATE INDEX a IF NOT EXISTS\n  FOR (n:Fact) ON (n.id)', 'CREATE INDEX b IF NOT EXISTS FOR (n:Fact) ON (n.x)']);
  });

  test('the migration files are numbered, idempotent, and valid Cypher', async () => {
    const files = readMigrations();
    assert.ok(files.length >= 4);
    files.forEach((f, i) => assert.match(f.name, new RegExp(`^${String(i + 1).padStart(3, '0')}_[a-z_]+\\.cypher$`)));
    const all = files.flatMap((f) => f.statements.map((text) => ({ file: f.name, text })));
    for (const s of all) assert.match(s.text, /IF NOT EXISTS/, `${s.file}: ${s.text}`);
    const { migrations, migrationResults } = await linted;
    assert.deepEqual(migrations.flatMap(([file, s], i) => migrationResults[i].map((p) => `${file}: ${s.text}: ${p.message}`)), []);
    const text = all.map((s) => s.text).join('\n');
    assert.match(text, /CREATE FULLTEXT INDEX fact_text .*FOR \(f:Fact\) ON EACH \[f\.text\]/);
    assert.match(text, /CREATE FULLTEXT INDEX chunk_text .*FOR \(c:Chunk\) ON EACH \[c\.searchText\]/);
    assert.match(text, /REQUIRE f\.id IS UNIQUE/);
    assert.match(text, /ON \(f\.bankId, f\.timeStartMs\)/);
  });

  test('the full-text index names used by search exist in the migrations', () => {
    const text = readMigrations().flatMap((f) => f.statements).join('\n');
    for (const s of [search.searchFacts(B, '"a"', 1), search.searchChunks(B, '"a"', 1)]) {
      const index = /queryNodes\('(\w+)'/.exec(s.text)?.[1];
      assert.ok(index && text.includes(`FULLTEXT INDEX ${index} `), `index ${index}`);
    }
  });
});

describe('fact properties', () => {
  test('a fact written as node properties reads back as the same fact', () => {
    // What Neo4j stores: content and lifecycle merged, nulls absent.
    const stored = compact({ ...factContent(fact), ...factLifecycle(fact), seq: 1, pending: false });
    assert.deepEqual(toFact(stored), fact);
    const sourceless = { ...fact, source: null, occurredStart: null, speaker: null };
    assert.deepEqual(toFact(compact({ ...factContent(sourceless), ...factLifecycle(sourceless) })), sourceless);
  });

  test('time span in epoch milliseconds: occurred, else mentioned', () => {
    const c = factContent(fact);
    assert.equal(c.timeStartMs, Date.parse('2023-06-01T00:00:00.000Z'));
    assert.equal(c.timeEndMs, Date.parse('2023-06-01T00:00:00.000Z'));
    const m = factContent({ ...fact, occurredStart: null });
    assert.equal(m.timeStartMs, Date.parse(fact.mentionedAt));
  });

  test('a new fact is queued; an observation or a consolidated fact is not', () => {
    assert.equal(factLifecycle(fact).queued, true);
    assert.equal(factLifecycle(observation).queued, false);
    assert.equal(factLifecycle({ ...fact, consolidatedAt: NOW }).queued, false);
  });
});
