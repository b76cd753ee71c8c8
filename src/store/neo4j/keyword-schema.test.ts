// The per-bank keyword schema's control flow, against a stub connection that records what would be sent (no
// Neo4j runs here; the Cypher itself is checked by statements.test.ts): indexes are created once per bank and
// process and awaited online, a concurrent creator's "already exists" is success, a bank that does not exist
// gets no index and finds nothing, a search that fails on a dropped index checks the schema again, a bank sweep
// drops its indexes, the upgrade migration labels and indexes every existing bank before the shared
// indexes are dropped, and reconcile finds and drops the indexes of banks that no longer exist (and only those).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Neo4jConnection, Row } from './connection.ts';
import { sweepBank } from './deletes.ts';
import { Neo4jKeywordIndex } from './indexes.ts';
import { keywordNames } from './keyword-names.ts';
import { reconcileKeywordIndexes } from '../reconcile-indexes.ts';
import { dropOrphanBankIndexes, KeywordSchema, orphanBankIndexes, runSchemaCommand } from './keyword-schema.ts';
import { migrateNeo4j } from './migrate.ts';
import { cypher, type Statement } from './statement.ts';

class StubDb {
  readonly sent: Statement[] = [];
  readonly banks = new Set<string>();
  readonly applied = new Set<string>();
  /** Full-text indexes on the server: CREATE adds, DROP removes, SHOW lists. */
  readonly indexes = new Set<string>();
  /** Called for each full-text query; may throw (a dropped index). */
  onQuery: (s: Statement) => Row[] = () => [{ id: 'f1', score: 1.5 }];
  /** Called for each auto-commit statement; may throw. */
  onSchema: (s: Statement) => void = () => {};

  async read(s: Statement): Promise<Row[]> {
    this.sent.push(s);
    if (s.text.startsWith('MATCH (b:Bank {id: $bankId})')) return this.banks.has(String(s.params.bankId)) ? [{ id: s.params.bankId }] : [];
    if (s.text.startsWith('MATCH (b:Bank) RETURN b.id')) return [...this.banks].sort().map((id) => ({ id }));
    if (s.text.startsWith('MATCH (m:Migration)')) return [...this.applied].map((name) => ({ name }));
    if (s.text.includes('queryNodes')) return this.onQuery(s);
    return [];
  }

  async write(s: Statement): Promise<Row[]> {
    this.sent.push(s);
    if (s.text.startsWith('MERGE (m:Migration')) this.applied.add(String(s.params.name));
    return [{ deleted: 0 }];
  }

  async autoCommit(s: Statement): Promise<Row[]> {
    this.sent.push(s);
    this.onSchema(s);
    const created = /^CREATE FULLTEXT INDEX (\w+)/.exec(s.text);
    if (created) this.indexes.add(created[1]);
    const dropped = /^DROP INDEX (\w+)/.exec(s.text);
    if (dropped) this.indexes.delete(dropped[1]);
    if (s.text.startsWith('SHOW FULLTEXT INDEXES'))
      return [...this.indexes]
        .filter((n) => n.startsWith(String(s.params.prefix)))
        .sort()
        .map((name) => ({ name }));
    return [];
  }

  texts(): string[] {
    return this.sent.map((s) => s.text);
  }

  asConnection(): Neo4jConnection {
    return this as unknown as Neo4jConnection;
  }
}

const schemaTexts = (db: StubDb): string[] => db.texts().filter((t) => /^(CREATE FULLTEXT|DROP INDEX|CALL db\.awaitIndex)/.test(t));

describe('keyword schema', () => {
  test('ensure creates both indexes and waits for them, once per bank (concurrent callers share the work)', async () => {
    const db = new StubDb();
    db.banks.add('b1');
    const schema = new KeywordSchema(db.asConnection());
    assert.deepEqual(await Promise.all([schema.ensure('b1'), schema.ensure('b1')]), [true, true]);
    assert.equal(await schema.ensure('b1'), true);
    const n = keywordNames('b1');
    const sent = schemaTexts(db);
    assert.equal(sent.length, 4);
    assert.match(sent[0], new RegExp(`^CREATE FULLTEXT INDEX ${n.factIndex} IF NOT EXISTS`));
    assert.match(sent[1], new RegExp(`^CREATE FULLTEXT INDEX ${n.chunkIndex} IF NOT EXISTS`));
    const waited = db.sent.filter((s) => s.text.startsWith('CALL db.awaitIndex')).map((s) => s.params.index);
    assert.deepEqual(waited, [n.factIndex, n.chunkIndex]);
  });

  test('a bank that does not exist gets no index, and is checked again next time', async () => {
    const db = new StubDb();
    const schema = new KeywordSchema(db.asConnection());
    assert.equal(await schema.ensure('ghost'), false);
    assert.deepEqual(schemaTexts(db), []);
    db.banks.add('ghost');
    assert.equal(await schema.ensure('ghost'), true);
    assert.equal(schemaTexts(db).length, 4);
  });

  test("another process's concurrent creation is success; other errors are not", async () => {
    const db = new StubDb();
    const equivalent = Object.assign(new Error('An equivalent index already exists'), {
      code: 'Neo.ClientError.Schema.EquivalentSchemaRuleAlreadyExists',
    });
    db.onSchema = () => {
      throw equivalent;
    };
    await runSchemaCommand(db.asConnection(), cypher('CREATE FULLTEXT INDEX x IF NOT EXISTS FOR (n:X) ON EACH [n.t]'));
    db.onSchema = () => {
      throw Object.assign(new Error('no'), { code: 'Neo.ClientError.Security.Forbidden' });
    };
    await assert.rejects(
      runSchemaCommand(db.asConnection(), cypher('CREATE FULLTEXT INDEX x IF NOT EXISTS FOR (n:X) ON EACH [n.t]')),
      /no/,
    );
  });

  test('a failed creation is not remembered', async () => {
    const db = new StubDb();
    db.banks.add('b1');
    const schema = new KeywordSchema(db.asConnection());
    db.onSchema = () => {
      throw new Error('server busy');
    };
    await assert.rejects(schema.ensure('b1'), /busy/);
    db.onSchema = () => {};
    assert.equal(await schema.ensure('b1'), true);
  });
});

describe('keyword search on per-bank indexes', () => {
  test("searches the bank's own index; a missing bank finds nothing without querying", async () => {
    const db = new StubDb();
    db.banks.add('b1');
    const index = new Neo4jKeywordIndex(db.asConnection(), new KeywordSchema(db.asConnection()));
    assert.deepEqual(await index.searchFacts('b1', 'Alice moved to Berlin', 5), [{ id: 'f1', score: 1.5 }]);
    await index.searchChunks('b1', 'Alice moved to Berlin', 5);
    const queried = db.sent.filter((s) => s.text.includes('queryNodes')).map((s) => s.params.index);
    assert.deepEqual(queried, [keywordNames('b1').factIndex, keywordNames('b1').chunkIndex]);
    assert.deepEqual(await index.searchFacts('nobody', 'Alice', 5), []);
    assert.equal(db.sent.filter((s) => s.text.includes('queryNodes')).length, 2);
  });

  test('a query failing on an index dropped elsewhere checks the schema again and retries once', async () => {
    const db = new StubDb();
    db.banks.add('b1');
    const schema = new KeywordSchema(db.asConnection());
    const index = new Neo4jKeywordIndex(db.asConnection(), schema);
    await index.searchFacts('b1', 'Alice', 5);
    let failures = 1;
    db.onQuery = () => {
      if (failures-- > 0) throw new Error('There is no such fulltext schema index');
      return [{ id: 'f2', score: 2 }];
    };
    const before = schemaTexts(db).length;
    assert.deepEqual(await index.searchFacts('b1', 'Alice', 5), [{ id: 'f2', score: 2 }]);
    assert.equal(schemaTexts(db).length, before + 4, 'indexes re-created (IF NOT EXISTS) and awaited');
    // The bank itself was deleted elsewhere: the retry finds no bank and returns nothing.
    failures = 1;
    db.banks.delete('b1');
    assert.deepEqual(await index.searchFacts('b1', 'Alice', 5), []);
    // A query that keeps failing surfaces its error.
    db.banks.add('b1');
    db.onQuery = () => {
      throw new Error('server down');
    };
    await assert.rejects(index.searchFacts('b1', 'Alice', 5), /server down/);
  });
});

describe('bank deletion and the upgrade', () => {
  test("a bank's sweep drops its indexes, unless the bank exists again", async () => {
    const db = new StubDb();
    await sweepBank(db.asConnection(), 'gone', 10);
    const n = keywordNames('gone');
    assert.deepEqual(schemaTexts(db), [`DROP INDEX ${n.factIndex} IF EXISTS`, `DROP INDEX ${n.chunkIndex} IF EXISTS`]);
    const again = new StubDb();
    again.banks.add('gone');
    await sweepBank(again.asConnection(), 'gone', 10);
    assert.deepEqual(schemaTexts(again), []);
  });

  test('migration 005 labels and indexes every existing bank, after 004 and before 006 drops the shared indexes', async () => {
    const db = new StubDb();
    db.banks.add('b1').add('b2');
    for (const name of ['001_constraints.cypher', '002_lookups.cypher', '003_keyword.cypher', '004_time.cypher']) db.applied.add(name);
    const applied = await migrateNeo4j(db.asConnection());
    assert.deepEqual(applied.slice(0, 2), ['005_bank_keyword_indexes', '006_shared_keyword_drop.cypher'], 'then any later ones');
    const texts = db.texts();
    const at = (re: RegExp): number => texts.findIndex((t) => re.test(t));
    for (const bank of ['b1', 'b2']) {
      const n = keywordNames(bank);
      const labelled = db.sent
        .filter((s) => s.text.includes('IN TRANSACTIONS') && s.params.bankId === bank)
        .map((s) => s.params.factLabel ?? s.params.chunkLabel);
      assert.deepEqual(labelled, [n.factLabel, n.chunkLabel], bank);
      const created = at(new RegExp(`^CREATE FULLTEXT INDEX ${n.factIndex} `));
      assert.ok(
        created > texts.findIndex((t, i) => t.includes('IN TRANSACTIONS') && db.sent[i].params.bankId === bank),
        `${bank}: labelled, then indexed`,
      );
    }
    assert.ok(at(/^DROP INDEX fact_text IF EXISTS$/) > at(new RegExp(`^CREATE FULLTEXT INDEX ${keywordNames('b2').chunkIndex} `)));
    assert.deepEqual(await migrateNeo4j(db.asConnection()), [], 'recorded: not applied twice');
  });
});

describe('reconcile: keyword indexes of deleted banks', () => {
  /** A server with banks `live` and `gone`, both indexed, then `gone`'s node swept by a deletion that died before dropping its indexes. */
  async function afterCrash(): Promise<StubDb> {
    const db = new StubDb();
    db.banks.add('live').add('gone');
    const schema = new KeywordSchema(db.asConnection());
    await schema.ensure('live');
    await schema.ensure('gone');
    db.banks.delete('gone');
    db.indexes.add('kw_custom').add('fact_text');
    return db;
  }
  const port = (db: StubDb) => ({
    orphanKeywordIndexes: () => orphanBankIndexes(db.asConnection()),
    dropOrphanKeywordIndexes: (names: string[]) => dropOrphanBankIndexes(db.asConnection(), names),
  });

  test("finds the deleted bank's two indexes, listing indexes before banks; a dry run drops nothing", async () => {
    const db = await afterCrash();
    const gone = keywordNames('gone');
    db.sent.length = 0;
    const found = await reconcileKeywordIndexes(port(db), true);
    assert.deepEqual(new Set(found), new Set([gone.factIndex, gone.chunkIndex]));
    assert.match(db.texts()[0], /^SHOW FULLTEXT INDEXES/, 'indexes listed first: a bank created meanwhile is then listed too');
    assert.match(db.texts()[1], /^MATCH \(b:Bank\) RETURN b\.id/);
    assert.equal(db.sent.length, 2);
    assert.equal(db.indexes.size, 6, 'nothing dropped');
  });

  test('a real run drops exactly those, and a second run finds nothing', async () => {
    const db = await afterCrash();
    const live = keywordNames('live');
    const gone = keywordNames('gone');
    const dropped = await reconcileKeywordIndexes(port(db), false);
    assert.deepEqual(new Set(dropped), new Set([gone.factIndex, gone.chunkIndex]));
    assert.deepEqual([...db.indexes].sort(), ['fact_text', 'kw_custom', live.chunkIndex, live.factIndex].sort());
    assert.deepEqual(
      schemaTexts(db)
        .filter((t) => t.startsWith('DROP'))
        .sort(),
      [`DROP INDEX ${gone.chunkIndex} IF EXISTS`, `DROP INDEX ${gone.factIndex} IF EXISTS`],
    );
    assert.deepEqual(await reconcileKeywordIndexes(port(db), false), []);
  });

  test('a bank re-created under the same id between finding and dropping keeps its indexes', async () => {
    const db = await afterCrash();
    const found = await orphanBankIndexes(db.asConnection());
    assert.equal(found.length, 2);
    db.banks.add('gone');
    assert.deepEqual(await dropOrphanBankIndexes(db.asConnection(), found), []);
    assert.ok(db.indexes.has(keywordNames('gone').factIndex));
  });

  test("names handed to the drop that are no bank index, or a live bank's, are never dropped", async () => {
    const db = await afterCrash();
    const live = keywordNames('live');
    const gone = keywordNames('gone');
    const dropped = await dropOrphanBankIndexes(db.asConnection(), ['fact_text', 'kw_custom', live.factIndex, gone.factIndex]);
    assert.deepEqual(dropped, [gone.factIndex]);
    assert.ok(db.indexes.has('fact_text') && db.indexes.has('kw_custom') && db.indexes.has(live.factIndex));
  });

  test('no bank index on the server: the banks are not even listed', async () => {
    const db = new StubDb();
    db.indexes.add('fact_text');
    assert.deepEqual(await reconcileKeywordIndexes(port(db), false), []);
    assert.deepEqual(
      db.texts().map((t) => t.split(' ')[0]),
      ['SHOW'],
    );
  });
});
