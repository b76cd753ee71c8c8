// Forgetting that really forgets: deleting a document (or a fact) leaves no fact, vector, keyword entry, link,
// evidence, entity or text of it anywhere in the store; observations that cited it are rebuilt from what is left
// (or removed when nothing is left); tombstones record what, when and why, never the content.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { repairBlanked } from '../src/consolidate/revise.ts';
import type { Fact, ObservationRevision } from '../src/core/types.ts';
import { FORGOTTEN_TEXT } from '../src/store/ports.ts';
import { openEngine, type TestEngine } from './support/consolidation.ts';

const MARK = 'zorblax';

/** Every row of every table, as text, that mentions the word (the per-bank keyword tables included: they are
 * contentless and keep no text, only the index). */
function rowsMentioning(t: TestEngine, word: string): string[] {
  const tables = t.store.db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`).all() as Array<{
    name: string;
  }>;
  const hits: string[] = [];
  for (const { name } of tables) {
    for (const row of t.store.db.prepare(`SELECT * FROM "${name}"`).all() as Array<Record<string, unknown>>) {
      const text = JSON.stringify(row, (_k, v: unknown) => (Buffer.isBuffer(v) ? '<blob>' : v));
      if (text.toLowerCase().includes(word)) hits.push(`${name}: ${text.slice(0, 200)}`);
    }
  }
  return hits;
}

const count = (t: TestEngine, sql: string, ...params: unknown[]): number => (t.store.db.prepare(sql).get(...params) as { n: number }).n;

async function observations(t: TestEngine, bank: string): Promise<Fact[]> {
  return (await t.store.listFacts(bank, { kinds: ['observation'], limit: 100, offset: 0 })).facts;
}

describe('forgetting', () => {
  let t: TestEngine;
  before(async () => {
    t = await openEngine();
  });
  after(async () => {
    await t.close();
  });

  test('deleting a document leaves no fact, vector, keyword entry, link, evidence, entity or text of it', async () => {
    await t.engine.createBank({ id: 'vault' });
    const secret = await t.engine.retain('vault', {
      items: [
        {
          content: 'Zorblax guards the northern vault of golden apples. Zorblax counts the golden apples every night.',
          documentId: 'secret',
          timestamp: '2024-01-02T10:00:00Z',
        },
      ],
    });
    await t.engine.retain('vault', {
      items: [
        {
          content: 'The northern vault keeps golden apples for the village. Villagers trade golden apples at the northern vault.',
          documentId: 'keep',
          timestamp: '2024-01-03T10:00:00Z',
        },
      ],
    });
    await t.worker.drain('vault');
    const gone = secret.result!.factIds;
    const kept = (await t.store.listFacts('vault', { documentId: 'keep', limit: 100, offset: 0 })).facts.map((f) => f.id);
    // Preconditions, so the checks below can fail: the secret is everywhere.
    const [mixed] = await observations(t, 'vault');
    const cited = (await t.store.evidenceOf('vault', mixed.id)).map((e) => e.factId);
    assert.ok(gone.some((id) => cited.includes(id)) && kept.some((id) => cited.includes(id)), 'one observation cites both documents');
    assert.ok(
      rowsMentioning(t, MARK).some((r) => r.startsWith('observation_revisions')),
      'its history quotes the secret',
    );
    assert.ok(
      count(
        t,
        `SELECT count(*) AS n FROM fact_links WHERE from_id IN (${gone.map(() => '?').join(',')}) OR to_id IN (${gone.map(() => '?').join(',')})`,
        ...gone,
        ...gone,
      ) > 0,
    );
    assert.equal((await t.store.getVectors('vault', gone)).size, gone.length);
    assert.ok((await t.store.keywords.searchFacts('vault', MARK, 10)).length > 0);

    const res = await t.call<{ factIds: string[]; observationIds: string[] }>(
      'DELETE',
      '/v1/banks/vault/documents/secret?reason=user%20request',
    );
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.factIds.sort(), [...gone].sort());
    assert.deepEqual(res.body.observationIds, [mixed.id]);

    assert.deepEqual(rowsMentioning(t, MARK), [], 'no row of any table mentions it');
    assert.deepEqual(await t.store.keywords.searchFacts('vault', MARK, 10, { includeSuperseded: true }), [], 'no fact keyword entry');
    assert.deepEqual(await t.store.keywords.searchChunks('vault', MARK, 10), [], 'no chunk keyword entry');
    assert.equal((await t.store.getFacts('vault', gone)).length, 0, 'no fact');
    assert.equal((await t.store.getVectors('vault', gone)).size, 0, 'no vector');
    assert.equal(
      count(t, 'SELECT count(*) AS n FROM fact_vectors v WHERE NOT EXISTS (SELECT 1 FROM facts f WHERE f.rid = v.fact_rid)'),
      0,
      'no orphan vector',
    );
    const inGone = gone.map(() => '?').join(',');
    assert.equal(
      count(t, `SELECT count(*) AS n FROM fact_links WHERE from_id IN (${inGone}) OR to_id IN (${inGone})`, ...gone, ...gone),
      0,
      'no link',
    );
    assert.equal(count(t, `SELECT count(*) AS n FROM evidence WHERE fact_id IN (${inGone})`, ...gone), 0, 'no evidence');
    assert.equal(count(t, `SELECT count(*) AS n FROM chunks WHERE document_id = 'secret'`), 0, 'no chunk');
    assert.equal(await t.store.getDocument('vault', 'secret'), null);

    // The observation was rebuilt from the other document's facts, with a fresh vector and a history entry.
    const [rebuilt] = await t.store.getObservations('vault', [mixed.id]);
    assert.ok(rebuilt && rebuilt.text !== FORGOTTEN_TEXT && rebuilt.text.length > 0, rebuilt?.text);
    assert.ok((await t.store.evidenceOf('vault', mixed.id)).every((e) => kept.includes(e.factId)));
    assert.equal((await t.store.getVectors('vault', [mixed.id])).size, 1);
    const history = await t.store.historyOf('vault', mixed.id);
    const last = history.at(-1)!;
    assert.equal(last.reason, 'evidence-removed');
    assert.equal(last.oldText, null);
    assert.ok(last.factIds.length > 0 && last.factIds.every((id) => gone.includes(id)), 'names the deleted facts by id only');
    const tombstones = await t.call<{ tombstones: Array<{ kind: string; targetId: string; reason: string }> }>(
      'GET',
      '/v1/banks/vault/tombstones',
    );
    assert.ok(tombstones.body.tombstones.some((s) => s.kind === 'document' && s.targetId === 'secret' && s.reason === 'user request'));
  });

  test('deleting a fact revises the observation; deleting its last evidence removes it with a tombstone', async () => {
    await t.engine.createBank({ id: 'garden' });
    const r = await t.engine.retain('garden', {
      items: [
        { content: 'Nora grows heirloom tomatoes in the greenhouse.', timestamp: '2024-03-01T10:00:00Z' },
        { content: 'The heirloom tomatoes in the greenhouse got blight quickly.', timestamp: '2024-04-01T10:00:00Z' },
      ],
    });
    await t.worker.drain('garden');
    const [a, b] = r.result!.factIds;
    const [obs] = await observations(t, 'garden');
    assert.deepEqual((await t.store.evidenceOf('garden', obs.id)).map((e) => e.factId).sort(), [a, b].sort());
    assert.match(obs.text, /blight/);

    assert.equal((await t.call('DELETE', `/v1/banks/garden/facts/${b}`)).status, 200);
    const [revised] = await t.store.getObservations('garden', [obs.id]);
    assert.equal(revised.text, 'Nora grows heirloom tomatoes in the greenhouse.');
    // When it was last said is now when the fact it still rests on was said, not the deleted one.
    assert.equal(obs.mentionedAt, '2024-04-01T10:00:00Z');
    assert.equal(revised.mentionedAt, '2024-03-01T10:00:00Z');
    // The document it came from is still there (delete the document to forget its text); nothing derived is.
    assert.deepEqual(
      rowsMentioning(t, 'blight').filter((r) => !r.startsWith('chunks:')),
      [],
    );
    const history = await t.call<{ history: ObservationRevision[] }>('GET', `/v1/banks/garden/observations/${obs.id}/history`);
    assert.deepEqual(history.body.history.map((h) => h.reason).at(-1), 'evidence-removed');

    assert.equal((await t.call('DELETE', `/v1/banks/garden/facts/${a}`)).status, 200);
    assert.deepEqual(await observations(t, 'garden'), []);
    assert.equal(count(t, 'SELECT count(*) AS n FROM observation_revisions WHERE observation_id = ?', obs.id), 0);
    const tombstones = await t.store.tombstones('garden', 10);
    assert.ok(tombstones.some((s) => s.kind === 'observation' && s.targetId === obs.id));
    assert.ok(tombstones.some((s) => s.kind === 'fact' && s.targetId === a));
    // Asked for by id afterwards, each says when and why it was deleted (never what it said).
    for (const [path, what, id] of [
      [`/v1/banks/garden/facts/${a}`, 'fact', a],
      [`/v1/banks/garden/why/${a}`, 'fact', a],
      [`/v1/banks/garden/observations/${obs.id}/history`, 'observation', obs.id],
      [`/v1/banks/garden/why/${obs.id}`, 'observation', obs.id],
      [`/v1/banks/garden/facts/${obs.id}`, 'observation', obs.id],
    ]) {
      const gone = await t.call<{ error: { message: string } }>('GET', path);
      assert.equal(gone.status, 404, path);
      assert.match(gone.body.error.message, new RegExp(`^${what} '${id}' was deleted at \\d{4}-.*\\(reason: ".+"\\)`), path);
      assert.doesNotMatch(gone.body.error.message, /tomato|blight/);
    }
    const never = await t.call<{ error: { message: string } }>('GET', '/v1/banks/garden/facts/fct_never_was');
    assert.equal(never.status, 404);
    assert.match(never.body.error.message, /does not exist/);
  });

  test('a tombstone answers only for what it was: a deleted fact is no deleted document, nor the reverse', async () => {
    await t.engine.createBank({ id: 'kinds' });
    await t.engine.createBank({ id: 'kinds-other' });
    const r = await t.engine.retain('kinds', {
      items: [
        { content: 'Ines repaired the blue kayak at the lake.', documentId: 'kayak' },
        { content: 'Omar painted the old fence in spring.', documentId: 'fence' },
      ],
    });
    const fact = r.result!.factIds[0];
    const fenceFacts = (await t.store.listFacts('kinds', { limit: 50, offset: 0, documentId: 'fence' })).facts.map((f) => f.id);
    assert.ok(fenceFacts.length > 0);
    assert.equal((await t.call('DELETE', `/v1/banks/kinds/facts/${fact}?reason=wrong`)).status, 200);
    assert.equal((await t.call('DELETE', '/v1/banks/kinds/documents/fence?reason=old')).status, 200);
    const message = async (method: string, path: string): Promise<string> => {
      const res = await t.call<{ error: { message: string } }>(method, path);
      assert.equal(res.status, 404, path);
      return res.body.error.message;
    };
    // Each asked for as what it was: its tombstone.
    assert.match(await message('GET', `/v1/banks/kinds/facts/${fact}`), /^fact '.+' was deleted at .*"wrong"/);
    assert.match(await message('GET', '/v1/banks/kinds/documents/fence'), /^document 'fence' was deleted at .*"old"/);
    assert.match(await message('DELETE', '/v1/banks/kinds/documents/fence'), /^document 'fence' was deleted at .*"old"/);
    // A fact that went with its document says so, in its own and in the why chain's answer.
    for (const id of fenceFacts) {
      assert.match(await message('GET', `/v1/banks/kinds/facts/${id}`), /^fact '.+' was deleted at .*"old \(with document 'fence'\)"/);
      assert.match(await message('GET', `/v1/banks/kinds/why/${id}`), /was deleted at .*"old \(with document 'fence'\)"/);
    }
    // Asked for as something else, or in another bank: never existed there.
    for (const [method, path] of [
      ['GET', `/v1/banks/kinds/documents/${fact}`],
      ['DELETE', `/v1/banks/kinds/documents/${fact}`],
      ['GET', `/v1/banks/kinds/observations/${fact}`],
      ['GET', `/v1/banks/kinds/observations/${fact}/history`],
      ['GET', '/v1/banks/kinds/facts/fence'],
      ['GET', '/v1/banks/kinds/why/fence'],
      ['GET', `/v1/banks/kinds-other/facts/${fact}`],
      ['GET', '/v1/banks/kinds-other/documents/fence'],
    ])
      assert.match(await message(method, path), /does not exist$/, `${method} ${path}`);
  });

  test("a deleted bank's 404 says when it was deleted; one never made does not exist", async () => {
    await t.engine.createBank({ id: 'gone-bank' });
    assert.equal((await t.call('DELETE', '/v1/banks/gone-bank')).status, 200);
    for (const [method, path, body] of [
      ['GET', '/v1/banks/gone-bank', undefined],
      ['POST', '/v1/banks/gone-bank/recall', { query: 'anything' }],
      ['POST', '/v1/banks/gone-bank/memories', { items: [{ content: 'Hello again.' }] }],
    ] as const) {
      const res = await t.call<{ error: { message: string } }>(method, path, body);
      assert.equal(res.status, 404, path);
      assert.match(res.body.error.message, /^bank 'gone-bank' was deleted at .*"deleted through the API"/, path);
    }
    // A reason given with the deletion is the one kept.
    await t.engine.createBank({ id: 'gone-why' });
    assert.equal((await t.call('DELETE', '/v1/banks/gone-why?reason=replaced%20by%20gone-why-2')).status, 200);
    const why = await t.call<{ error: { message: string } }>('GET', '/v1/banks/gone-why');
    assert.match(why.body.error.message, /^bank 'gone-why' was deleted at .*"replaced by gone-why-2"/);
    assert.equal((await t.call('DELETE', '/v1/banks/gone-why?reson=typo')).status, 400);
    // A blank reason is no reason: the default is kept.
    await t.engine.createBank({ id: 'gone-blank' });
    assert.equal((await t.call('DELETE', '/v1/banks/gone-blank?reason=%20%20')).status, 200);
    assert.match(
      (await t.call<{ error: { message: string } }>('GET', '/v1/banks/gone-blank')).body.error.message,
      /"deleted through the API"/,
    );
    // An operation asked for in a deleted bank: the bank's deletion is the answer.
    const op = await t.call<{ error: { message: string } }>('GET', '/v1/operations/abc?bank=gone-why');
    assert.equal(op.status, 404);
    assert.match(op.body.error.message, /^bank 'gone-why' was deleted at /);
    const never = await t.call<{ error: { message: string } }>('GET', '/v1/banks/never-made');
    assert.equal(never.status, 404);
    assert.match(never.body.error.message, /^bank 'never-made' does not exist$/);
    // An id of kilobytes is not repeated whole in the answer.
    await t.engine.createBank({ id: 'long-ids' });
    for (const what of ['facts', 'documents']) {
      const long = await t.call<{ error: { message: string } }>('GET', `/v1/banks/long-ids/${what}/x${'y'.repeat(5000)}`);
      assert.equal(long.status, 404, what);
      assert.match(long.body.error.message, /^\w+ 'xy{59}\.\.\.' \(5001 characters\) does not exist$/, what);
    }
    assert.match(
      (await t.call<{ error: { message: string } }>('GET', `/v1/banks/long-ids/facts/${'z'.repeat(100)}`)).body.error.message,
      /^fact 'z{100}' does not exist$/,
    );
    const longOp = await t.call<{ error: { message: string } }>('GET', `/v1/operations/x${'y'.repeat(5000)}?bank=long-ids`);
    assert.equal(longOp.status, 404);
    assert.match(longOp.body.error.message, /^bank 'long-ids' has no operation with id or operationId 'xy{59}\.\.\.' \(5001 characters\)$/);
    const route = await t.call<{ error: { message: string } }>('GET', `/v1/banks/long-ids/no-such-route/${'q'.repeat(5000)}`);
    assert.equal(route.status, 404);
    assert.ok(route.body.error.message.length < 300, `${route.body.error.message.length} characters`);
  });

  test('forgetting the newer fact makes the one it superseded current again', async () => {
    await t.engine.createBank({ id: 'home' });
    const first = await t.engine.retain('home', { items: [{ content: 'Omar lives in Cairo.', timestamp: '2023-01-01T10:00:00Z' }] });
    const second = await t.engine.retain('home', { items: [{ content: 'Omar lives in Lagos.', timestamp: '2024-01-01T10:00:00Z' }] });
    await t.worker.drain('home');
    const [cairo] = first.result!.factIds;
    assert.equal((await t.store.getFacts('home', [cairo]))[0].status, 'superseded');
    await t.engine.memories.deleteFact('home', second.result!.factIds[0], 'wrong');
    const [restored] = await t.store.getFacts('home', [cairo]);
    assert.equal(restored.status, 'active');
    assert.equal(restored.supersededBy, null);
    assert.equal(restored.validTo, null);
  });

  test('an observation left blank by a crash between a delete and its rebuild is repaired', async () => {
    await t.engine.createBank({ id: 'crashy' });
    await t.engine.retain('crashy', {
      items: [
        { content: 'Ivo restores vintage motorcycles in his workshop.', timestamp: '2024-03-01T10:00:00Z' },
        { content: 'The vintage motorcycles in the workshop need rare parts.', timestamp: '2024-03-02T10:00:00Z' },
      ],
    });
    await t.worker.drain('crashy');
    const [obs] = await observations(t, 'crashy');
    const [, second] = (await t.store.evidenceOf('crashy', obs.id)).map((e) => e.factId);
    // The store alone, without the engine's rebuild hook: what a crash right after the delete leaves.
    await t.store.deleteFacts('crashy', [second], 'test');
    assert.equal((await t.store.getObservations('crashy', [obs.id]))[0].text, FORGOTTEN_TEXT);
    const repaired = await repairBlanked(t.worker.deps, 'crashy');
    assert.deepEqual(repaired.revised, [obs.id]);
    assert.equal((await t.store.getObservations('crashy', [obs.id]))[0].text, 'Ivo restores vintage motorcycles in his workshop.');
  });
});
