// The server store's Cypher, checked without a server: every statement the adapter can send is parsed and
// semantically analysed by Neo4j's own language support (syntax, undefined variables, parameters missing), every
// parameter it names is given and every one given is used, input values never reach the statement text, counts
// travel as integers, and the filter, Lucene and migration builders produce what they should. The keyword arm's
// per-bank schema: identifiers derived from a hash of the bank id, never its characters, used by writes and search.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import neo4j from 'neo4j-driver';
import type { Chunk, DocumentRecord, Entity, Fact, Observation, Operation } from '../../core/types.ts';
import { factCondition } from './filter.ts';
import { bankDigest, indexDigest, KEYWORD_INDEX_PREFIX, keywordNames, orphanIndexNames, schemaIdentifier } from './keyword-names.ts';
import { lintStatement, lintStatements } from '../../../test/support/cypher-lint.ts';
import { allMigrations, readMigrations, sessionBackfill, splitCypher } from './migrate.ts';
import { compact, factContent, factLifecycle } from './props.ts';
import { toFact } from './rows.ts';
import type { Statement } from './statement.ts';
import * as del from './statements/deletes.ts';
import * as items from './statements/items.ts';
import * as ks from './statements/keyword-schema.ts';
import * as pending from './statements/pending.ts';
import * as reads from './statements/reads.ts';
import * as rec from './statements/records.ts';
import * as q from './statements/queue.ts';
import * as search from './statements/search.ts';
import * as threads from './statements/threads.ts';
import * as usage from './statements/usage.ts';
import { itemPatch, itemProps, messageProps, usageProps } from './thread-rows.ts';
import { BUCKET_START } from '../../llm/index.ts';

/** A value that would break out of a string literal or a clause if it were spliced into the text. */
const EVIL = "x' }) DETACH DELETE n //";
const B = `bank-${EVIL}`;
const NOW = '2024-05-01T10:00:00.000Z';

const fact: Fact = {
  id: `fct-${EVIL}`,
  bankId: B,
  kind: 'world',
  text: `Alice moved to Berlin ${EVIL}`,
  occurredStart: '2023-06-01T00:00:00.000Z',
  occurredEnd: null,
  mentionedAt: '2023-06-14T10:00:00.000Z',
  entities: ['ent-1', 'ent-2'],
  source: { documentId: 'doc-1', chunkId: 'chk-1', itemId: 'itm-1', start: 0, end: 20, session: 'doc-1' },
  speaker: 'Alice',
  metadata: { turn: 't1' },
  tags: ['work'],
  stance: null,
  context: null,
  status: 'active',
  validFrom: '2023-06-01T00:00:00.000Z',
  validTo: null,
  supersededBy: null,
  supersededAt: null,
  consolidatedAt: null,
  createdAt: NOW,
  updatedAt: NOW,
};
const observation: Observation = { ...fact, id: 'obs-1', kind: 'observation', source: null, proofCount: 1, consolidatedAt: NOW };
const chunk: Chunk = {
  id: 'chk-1',
  bankId: B,
  documentId: 'doc-1',
  index: 0,
  itemId: 'itm-1',
  text: 'I moved to Berlin.',
  contentHash: 'h',
  speaker: 'Alice',
  timestamp: NOW,
  context: null,
  metadata: {},
  tags: [],
};
const document: DocumentRecord = { id: 'doc-1', bankId: B, contentHash: 'hash-1', metadata: {}, tags: [], createdAt: NOW, updatedAt: NOW };
const entity: Entity = {
  id: 'ent-1',
  bankId: B,
  name: 'Alice',
  aliases: ['Al'],
  type: 'person',
  mentionCount: 2,
  firstSeen: NOW,
  lastSeen: NOW,
};
const operation: Operation = {
  id: 'op-1',
  bankId: B,
  kind: 'retain',
  status: 'running',
  progress: { done: 1, total: 2 },
  input: { items: [] },
  result: null,
  error: null,
  createdAt: NOW,
  updatedAt: NOW,
};
const vector = new Float32Array([0.6, 0.8]);
const filterAll = { kinds: ['world' as const], tags: [EVIL], recordedBefore: NOW, occurredFrom: NOW, occurredTo: NOW, validAt: NOW };

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
  add('takeWriteLease', rec.takeWriteLease({ bankId: B, holder: EVIL, host: EVIL, pid: 7, startedAt: NOW, until: NOW }, EVIL, NOW));
  add('releaseWriteLease', rec.releaseWriteLease(B, EVIL));
  add('createOperation', rec.createOperation(operation));
  add('updateOperation', rec.updateOperation(operation));
  add('adoptOperation', rec.adoptOperation('op-1', EVIL, EVIL));
  add('getOperation', rec.getOperation('op-1'));
  add('unfinishedOperations', rec.unfinishedOperations());
  add('listOperations', rec.listOperations(B, { limit: 20, offset: 40, status: 'running' }));
  add('operationByKey', rec.operationByKey(B, EVIL));
  add('operationsByKey', rec.operationsByKey(EVIL));
  add('takeOperationKey', rec.takeOperationKey(B, EVIL, 'op-1', 'hash'));
  add('rebindOperationKey', rec.rebindOperationKey(B, EVIL, 'op-1', 'hash'));
  add('checkpointOperation', rec.checkpointOperation(operation));
  add('operationRunning', rec.operationRunning('op-1'));
  add('failOperationsOfBank', rec.failOperationsOfBank(B, EVIL, NOW));
  add('createTombstones', rec.createTombstones([{ id: 't', bankId: B, kind: 'fact', targetId: 'f', reason: EVIL, at: NOW }]));
  add('listTombstones', rec.listTombstones(B, 10, 20));
  add('tombstoneOf', rec.tombstoneOf(B, EVIL, ['fact', 'observation']));

  const staging = { pending: true, now: NOW };
  add('upsertDocument', items.upsertDocument(document, staging));
  add('deleteFactsOfChunks', items.deleteFactsOfChunks(B, ['chk-1'], false));
  add('deleteChunks', items.deleteChunks(B, ['chk-1']));
  add('upsertChunks', items.upsertChunks(B, [chunk], staging));
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
  const listQuery = { limit: 10, offset: 0, documentId: 'doc-1', entityId: 'ent-1', session: EVIL, ...filterAll };
  add('countFacts', reads.countFacts(B, listQuery));
  add('countActiveFacts', reads.countActiveFacts(B));
  add('listFacts', reads.listFacts(B, listQuery));
  add('newestFacts', reads.newestFacts(B, { limit: 5, entityId: 'ent-1', ...filterAll }));
  add('newestFacts (bank)', reads.newestFacts(B, { limit: 5, ...filterAll }));
  add('factsInTimeRange', reads.factsInTimeRange(B, '2023-01-01T00:00:00Z', '2023-12-31T00:00:00Z', 5, filterAll));
  add('factIdsOfChunks', reads.factIdsOfChunks(B, ['c'], filterAll));
  add('sessions', reads.sessions(B));
  add('sessionBackfill', sessionBackfill());
  add('factsOfSessions', reads.factsOfSessions(B, [EVIL], 5, filterAll));
  add('getEntities', reads.getEntities(B, ['e']));
  add('listEntities', reads.listEntities(B, 10, 0));
  add('entitiesByKeys', reads.entitiesByKeys(B, ['alice']));
  add('coMentions', reads.coMentions(B, ['ent-1', EVIL, 'ent-2']));
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
  add(
    'createRevisions',
    q.createRevisions(B, [{ id: 'r', observationId: 'o', oldText: null, newText: EVIL, factIds: ['f'], reason: 'created', at: NOW }]),
  );
  add('supersede', q.supersede(B, [{ factId: 'f', by: 'g', at: NOW }]));
  add('removeObservations', q.removeObservations(B, ['o']));
  add('markConsolidated', q.markConsolidated(B, ['f'], NOW));
  add('activateObservations', q.activateObservations(B, ['o']));
  add('failClaim', q.failClaim(B, EVIL, ['f'], EVIL, 5, NOW));
  add('deadLetters', q.deadLetters(B));
  add('retryDeadLetters', q.retryDeadLetters(B, ['f']));
  add('backlog', q.backlog(B));
  add('banksWithBacklog', q.banksWithBacklog());
  add('queueDetail', q.queueDetail(B, NOW));
  add('beat', q.beat({ id: EVIL, role: EVIL, host: EVIL, pid: 42, startedAt: NOW, beatAt: NOW, aliveUntil: NOW }));
  add('heartbeats', q.heartbeats());
  add('retireHeartbeat', q.retireHeartbeat(EVIL, NOW));
  add('releaseClaims', q.releaseClaims(EVIL));

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

  add('createBankIndexes', ks.createBankIndexes(B));
  add('dropBankIndexes', ks.dropBankIndexes(B));
  add('awaitIndex', ks.awaitIndex(keywordNames(B).factIndex, 300));
  add('bankIds', ks.bankIds());
  add('bankExists', ks.bankExists(B));
  add('labelBankNodes', ks.labelBankNodes(B, 5000));
  add('fulltextIndexNames', ks.fulltextIndexNames(KEYWORD_INDEX_PREFIX));
  add('dropIndex', ks.dropIndex(keywordNames(B).chunkIndex));

  add('stalePendingDocuments', pending.stalePendingDocuments(NOW, 100));
  add('pendingFactsOfDocument', pending.pendingFactsOfDocument(B, 'doc-1'));
  add('pendingChunksOfDocument', pending.pendingChunksOfDocument(B, 'doc-1'));
  add('stalePendingFacts', pending.stalePendingFacts(NOW, 100));
  add('rollbackDocument', pending.rollbackDocument(B, 'doc-1'));
  add('pointOwners', pending.pointOwners(['f']));
  add('factsExpectingPoints', pending.factsExpectingPoints(B, 0, 100));
  add('markNeedsEmbedding', pending.markNeedsEmbedding(B, ['f']));
  add('clearNeedsEmbedding', pending.clearNeedsEmbedding(B, ['f']));

  const message = messageProps({
    seq: 3,
    id: EVIL,
    bankId: B,
    threadId: EVIL,
    role: 'user',
    name: EVIL,
    content: EVIL,
    toolCalls: [{ name: EVIL }],
    timestamp: NOW,
    tokens: 4,
    createdAt: NOW,
  });
  const memoryItem = itemProps(
    {
      id: EVIL,
      bankId: B,
      recordId: EVIL,
      threadId: EVIL,
      kind: 'observation',
      generation: 0,
      status: 'active',
      text: EVIL,
      tokens: 3,
      fromSeq: 1,
      toSeq: 2,
      messageCount: 2,
      inputTokens: 9,
      covers: [EVIL],
      currentTask: EVIL,
      suggestedResponse: null,
      firstAt: NOW,
      lastAt: NOW,
      createdAt: NOW,
      activatedAt: null,
      archivedAt: null,
    },
    7,
    null,
  );
  add('getThread', threads.getThread(B, EVIL));
  add('saveThread', threads.saveThread({ bankId: B, id: EVIL, resourceId: EVIL, settings: '{}', createdAt: NOW, updatedAt: NOW }));
  add('listThreads', threads.listThreads(B, EVIL, 10, 5));
  add('lockThread', threads.lockThread(B, EVIL, NOW));
  add('createMessages', threads.createMessages(B, EVIL, [message], 3));
  add('takenSeqs', threads.takenSeqs(B, EVIL, [1, 2]));
  add('deleteThread', threads.deleteThread(B, EVIL));
  add('listMessages', threads.listMessages(B, EVIL, { afterSeq: 2, limit: 10, offset: 1, unbridged: true }));
  add('countMessages', threads.countMessages(B, EVIL));
  add('markMessagesBridged', threads.markMessagesBridged(B, [EVIL], NOW));
  add('takeRids', threads.takeRids(B, 3, NOW));
  add('createItems', threads.createItems([memoryItem]));
  add('updateItems', threads.updateItems(B, [{ id: EVIL, patch: itemPatch({ status: 'archived', text: EVIL, covers: [EVIL] }) ?? {} }]));
  add('removeItems', threads.removeItems(B, [EVIL]));
  add('listItems', threads.listItems(B, EVIL, { statuses: ['active'], kinds: ['observation'], threadId: EVIL, limit: null }));
  add('listItems (first ones)', threads.listItems(B, EVIL, { statuses: null, kinds: null, threadId: null, limit: 1 }));
  add('deleteItemsOfRecord', threads.deleteItemsOfRecord(B, EVIL, true));
  add('watermarks', threads.watermarks(B, EVIL));
  add('unbridgedObservations', threads.unbridgedObservations(B, EVIL, 10));
  add('markItemsBridged', threads.markItemsBridged(B, [EVIL], NOW));
  add('exportItems', threads.exportItems(B, 10, 20));
  add('getWorkingMemory', threads.getWorkingMemory(B, EVIL));
  add('putWorkingMemory', threads.putWorkingMemory({ bankId: B, key: EVIL, content: EVIL, updatedAt: NOW }));
  add('deleteWorkingMemory', threads.deleteWorkingMemory(B, EVIL));
  add('listWorkingMemory', threads.listWorkingMemory(B));
  add('deleteThreadsOfBank', threads.deleteThreadsOfBank(B));
  const call = {
    operation: 'threads' as const,
    bankId: B,
    provider: EVIL,
    model: EVIL,
    inputTokens: 10,
    outputTokens: 2,
    cachedTokens: 0,
    latencyMs: 12.5,
    costUsd: 0.01,
    at: NOW,
    ok: false,
    error: EVIL,
  };
  add('recordUsage', usage.recordUsage(usageProps(call, NOW)));
  add('usageGroups', usage.usageGroups({ bankId: B, from: NOW, to: null }));
  add('usageTotal', usage.usageTotal({ bankId: B, from: null, to: NOW }));
  add('usageSeries', usage.usageSeries({ bankId: B, from: NOW, to: null }, BUCKET_START.hour));
  return out;
}

/** Parameter names used in a statement text ($name). */
const usedParams = (text: string): Set<string> => new Set([...text.matchAll(/\$([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]));

/**
 * One parallel analysis of every statement and migration (a quarter of a second each). The per-label sweeps differ
 * only in their constant label, so one of each kind is analysed.
 */
const linted = (async () => {
  const statements = catalogue().filter(([name]) => !/^(sweepBank|orphanBankIds)\((?!Fact|Operation)/.test(name));
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
    // Dynamic labels: SET takes them in Cypher 5 (Neo4j 5.24+); label predicates in WHERE only came with Cypher 25.
    assert.deepEqual(lintStatement({ text: 'MATCH (f:Fact) SET f:$($label)', params: { label: 'L' } }), []);
    assert.ok(
      lintStatement({ text: 'MATCH (f:Fact) WHERE f:$($label) RETURN f', params: { label: 'L' } }).some((p) => p.severity === 'error'),
    );
    assert.ok(lintStatement({ text: 'MATCH (f:Fact) SET f:$(label)', params: {} }).some((p) => p.severity === 'error'));
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

  test('LIMIT, SKIP, list slices, batch sizes and timeouts take integer parameters', () => {
    for (const [name, s] of statements)
      for (const m of s.text.matchAll(/(?:LIMIT|SKIP|\.\.|TRANSACTIONS OF|awaitIndex\(\$\w+,)\s*\$([A-Za-z]+)/g))
        assert.ok(neo4j.isInt(s.params[m[1]]), `${name}: $${m[1]} is not an integer`);
  });

  test("labels and relationship types are constants of the model (or a bank's hashed keyword label)", () => {
    const labels = new Set([
      'Bank',
      'Document',
      'Chunk',
      'Fact',
      'Entity',
      'EntityKey',
      'Revision',
      'Operation',
      'OperationKey',
      'Tombstone',
      'Migration',
      'Heartbeat',
      'Thread',
      'ThreadMessage',
      'ThreadMemoryItem',
      'WorkingMemory',
      'ThreadItemCounter',
      'LlmUsage',
    ]);
    const types = new Set(['MENTIONS', 'LINK', 'EVIDENCE']);
    const bankLabel = /^Kw(Fact|Chunk)_[0-9a-f]{24}$/;
    for (const [name, s] of statements) {
      for (const m of s.text.matchAll(/\(\w*:(\w+)/g)) assert.ok(labels.has(m[1]) || bankLabel.test(m[1]), `${name}: label ${m[1]}`);
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

  test('occurred time overlapping the range (undated facts out), valid time containing the instant', () => {
    const c = factCondition({ occurredFrom: NOW, occurredTo: NOW, validAt: NOW }, 'f');
    assert.match(c.text, /f\.occurredStart IS NOT NULL/);
    assert.match(c.text, /f\.occurredStart <= \$filterOccurredTo/);
    assert.match(c.text, /coalesce\(f\.occurredEnd, f\.occurredStart\) >= \$filterOccurredFrom/);
    assert.match(
      c.text,
      /\(f\.validFrom IS NULL OR f\.validFrom <= \$filterValidAt\) AND \(f\.validTo IS NULL OR f\.validTo > \$filterValidAt\)/,
    );
    assert.match(c.text, /f\.status = 'active'/);
    assert.deepEqual(c.params, { filterOccurredFrom: NOW, filterOccurredTo: NOW, filterValidAt: NOW });
    assert.doesNotMatch(factCondition({ occurredTo: NOW }, 'f').text, /occurredFrom|occurredEnd/);
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
    const text =
      '// header\nCREATE INDEX a IF NOT EXISTS\n  FOR (n:Fact) ON (n.id);\n\n// next\nCREATE INDEX b IF NOT EXISTS FOR (n:Fact) ON (n.x);\n';
    assert.deepEqual(splitCypher(text), [
      'CREATE INDEX a IF NOT EXISTS\n  FOR (n:Fact) ON (n.id)',
      'CREATE INDEX b IF NOT EXISTS FOR (n:Fact) ON (n.x)',
    ]);
  });

  test('the migrations (files and code) are numbered, idempotent, and valid Cypher', async () => {
    const migrations = allMigrations();
    assert.ok(migrations.length >= 6);
    migrations.forEach((m, i) =>
      assert.match(m.name, new RegExp(`^${String(i + 1).padStart(3, '0')}_[a-z_]+${m.kind === 'cypher' ? '\\.cypher' : ''}$`)),
    );
    const files = readMigrations();
    const all = files.flatMap((f) => f.statements.map((text) => ({ file: f.name, text })));
    for (const s of all) assert.match(s.text, /IF (NOT )?EXISTS/, `${s.file}: ${s.text}`);
    const { migrations: linted_, migrationResults } = await linted;
    assert.deepEqual(
      linted_.flatMap(([file, s], i) => migrationResults[i].map((p) => `${file}: ${s.text}: ${p.message}`)),
      [],
    );
    const text = all.map((s) => s.text).join('\n');
    assert.match(text, /REQUIRE f\.id IS UNIQUE/);
    assert.match(text, /ON \(f\.bankId, f\.timeStartMs\)/);
  });

  test('the shared full-text indexes are dropped after each bank got its own', () => {
    const names = allMigrations().map((m) => m.name);
    const upgrade = names.indexOf('005_bank_keyword_indexes');
    const drop = readMigrations().find((f) => f.statements.some((t) => /^DROP INDEX fact_text IF EXISTS$/.test(t)));
    assert.ok(upgrade >= 0 && drop, 'an upgrade and a drop');
    assert.ok(names.indexOf(drop.name) > upgrade, 'the drop comes after the upgrade');
    assert.ok(drop.statements.includes('DROP INDEX chunk_text IF EXISTS'));
  });
});

describe('per-bank keyword indexes', () => {
  test('names derive from sha256 of the bank id: stable, and the same for labels and indexes', () => {
    assert.equal(bankDigest('bank-1'), '5436e7948ad1df5d02e9d2e3');
    assert.deepEqual(keywordNames('bank-1'), {
      factLabel: 'KwFact_5436e7948ad1df5d02e9d2e3',
      chunkLabel: 'KwChunk_5436e7948ad1df5d02e9d2e3',
      factIndex: 'kw_fact_5436e7948ad1df5d02e9d2e3',
      chunkIndex: 'kw_chunk_5436e7948ad1df5d02e9d2e3',
    });
    assert.deepEqual(keywordNames('bank-1'), keywordNames('bank-1'));
  });

  test('near-identical bank ids get distinct names, all made of [A-Za-z0-9_] whatever the id holds', () => {
    const ids = ['a', 'A', 'a ', ' a', 'a\u0000', 'ä', 'a\u0308', B, EVIL, '`x`', ...Array.from({ length: 2000 }, (_, i) => `bank-${i}`)];
    const names = ids.map(keywordNames);
    for (const key of ['factLabel', 'chunkLabel', 'factIndex', 'chunkIndex'] as const) {
      assert.equal(new Set(names.map((n) => n[key])).size, ids.length, key);
      for (const n of names) assert.match(n[key], /^[A-Za-z0-9_]+$/);
    }
  });

  test('schemaIdentifier refuses anything but [A-Za-z0-9_]', () => {
    for (const bad of ['', 'a-b', 'a b', "x'", 'a`b', 'ä', 'a;DROP', 'a\n', 'a.b', 'a$b', 'a)'])
      assert.throws(() => schemaIdentifier(bad), /unsafe/, JSON.stringify(bad));
    assert.equal(schemaIdentifier('kw_fact_0Af9'), 'kw_fact_0Af9');
  });

  test("listing the banks' indexes takes the prefix as a parameter; DROP INDEX only takes a safe identifier", () => {
    const list = ks.fulltextIndexNames(KEYWORD_INDEX_PREFIX);
    assert.match(list.text, /^SHOW FULLTEXT INDEXES YIELD name WHERE name STARTS WITH \$prefix RETURN name/);
    assert.deepEqual(list.params, { prefix: 'kw_' });
    for (const n of [keywordNames('a'), keywordNames(B)])
      for (const name of [n.factIndex, n.chunkIndex]) assert.ok(name.startsWith(KEYWORD_INDEX_PREFIX));
    assert.equal(ks.dropIndex('kw_fact_0a').text, 'DROP INDEX kw_fact_0a IF EXISTS');
    for (const bad of ['kw_fact_x IF EXISTS; MATCH (n) DETACH DELETE n //', 'kw`x', '']) assert.throws(() => ks.dropIndex(bad), /unsafe/);
  });

  test('an index name gives back the digest of its bank, and only a name keywordNames builds does', () => {
    for (const id of ['bank-1', B, 'ä']) {
      const n = keywordNames(id);
      assert.equal(indexDigest(n.factIndex), bankDigest(id));
      assert.equal(indexDigest(n.chunkIndex), bankDigest(id));
      assert.equal(indexDigest(n.factLabel), null, 'a label is not an index');
    }
    const d = bankDigest('bank-1');
    for (const other of [
      'fact_text',
      'chunk_text',
      'kw_custom',
      `kw_entity_${d}`,
      `kw_fact_${d}x`,
      `kw_fact_${d.slice(1)}`,
      `kw_fact_${d.toUpperCase()}`,
      `xkw_fact_${d}`,
    ])
      assert.equal(indexDigest(other), null, other);
  });

  test("orphan indexes: those whose digest is no existing bank's, never a live bank's nor a foreign index", () => {
    const live = keywordNames('alive');
    const gone = keywordNames('gone');
    const other = keywordNames('also-gone');
    const names = [
      live.factIndex,
      gone.chunkIndex,
      'kw_custom',
      live.chunkIndex,
      gone.factIndex,
      other.factIndex,
      'fact_text',
      gone.factIndex,
    ];
    assert.deepEqual(orphanIndexNames(names, ['alive', 'unrelated']), [gone.chunkIndex, gone.factIndex, other.factIndex]);
    assert.deepEqual(orphanIndexNames(names, ['alive', 'gone', 'also-gone']), []);
    assert.deepEqual(orphanIndexNames(names, []), [live.factIndex, gone.chunkIndex, live.chunkIndex, gone.factIndex, other.factIndex]);
    assert.deepEqual(orphanIndexNames([], ['alive']), []);
    // Bank ids are compared by digest, exactly: a near-identical id is another bank.
    assert.deepEqual(orphanIndexNames([live.factIndex], ['alive ']), [live.factIndex]);
  });

  test("search queries the bank's own indexes, which cover the labels the writes set", () => {
    const n = keywordNames(B);
    const facts = search.searchFacts(B, '"a"', 1);
    const chunks = search.searchChunks(B, '"a"', 1);
    assert.match(facts.text, /queryNodes\(\$index, \$query\)/);
    assert.equal(facts.params.index, n.factIndex);
    assert.equal(chunks.params.index, n.chunkIndex);
    assert.notEqual(search.searchFacts('other', '"a"', 1).params.index, n.factIndex);
    const [createFacts, createChunks] = ks.createBankIndexes(B).map((st) => st.text);
    assert.match(
      createFacts,
      new RegExp(`^CREATE FULLTEXT INDEX ${n.factIndex} IF NOT EXISTS FOR \\(f:${n.factLabel}\\) ON EACH \\[f\\.text, f\\.context\\]`),
    );
    assert.match(
      createChunks,
      new RegExp(`^CREATE FULLTEXT INDEX ${n.chunkIndex} IF NOT EXISTS FOR \\(c:${n.chunkLabel}\\) ON EACH \\[c\\.searchText\\]`),
    );
    for (const st of [...ks.createBankIndexes(B)]) assert.match(st.text, /`fulltext\.analyzer`: 'english'/);
    assert.deepEqual(
      ks.dropBankIndexes(B).map((st) => st.text),
      [`DROP INDEX ${n.factIndex} IF EXISTS`, `DROP INDEX ${n.chunkIndex} IF EXISTS`],
    );
    // Every write that creates a fact or a chunk gives it the bank's label.
    const upsertFacts = items.upsertFacts(B, [{ fact, vector }], { pending: false, now: NOW });
    const upsertObservations = q.upsertObservations(B, [{ observation, vector }], NOW);
    for (const st of [upsertFacts, upsertObservations]) {
      assert.match(st.text, /SET [^\n]*\w:\$\(\$factLabel\)/);
      assert.equal(st.params.factLabel, n.factLabel);
    }
    const upsertChunks = items.upsertChunks(B, [chunk], { pending: false, now: NOW });
    assert.match(upsertChunks.text, /x:\$\(\$chunkLabel\)/);
    assert.equal(upsertChunks.params.chunkLabel, n.chunkLabel);
    // The upgrade labels exactly what the indexes cover.
    const [labelFacts, labelChunks] = ks.labelBankNodes(B, 100);
    assert.equal(labelFacts.params.factLabel, n.factLabel);
    assert.equal(labelChunks.params.chunkLabel, n.chunkLabel);
    assert.match(labelFacts.text, /MATCH \(x:Fact \{bankId: \$bankId\}\)/);
    assert.match(labelChunks.text, /MATCH \(x:Chunk \{bankId: \$bankId\}\)/);
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
