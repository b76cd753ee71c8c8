// Cairn Explorer in a real browser (Debian's chromium through playwright-core): a Cairn with a short conversation,
// consolidated, then every screen built so far walked as a user would: the key prompt, the banks (counts, create,
// edit, delete with confirmation, each checked against the API) and the recall debugger. A PNG of each screen goes
// to test-output/explorer/. Without chromium on the machine the test says SKIPPED (.ci/run installs it).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type Browser, chromium, type Page } from 'playwright-core';
import { type FakeLlmServer, reply, startFakeLlmServer } from './support/fake-llm-server.ts';
import { until } from './support/poll.ts';
import { startServer, type TestServer } from './support/server.ts';

const KEY = 'explorer-key';
const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const AXE_RULES = { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] } };
const SHOTS = join(import.meta.dirname, '..', 'test-output', 'explorer');

/** Photographs a screen, then audits it with axe-core (WCAG 2.1 A and AA and best practice: names, labels, contrast,
 * landmarks); any violation fails the test. */
async function shoot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
  await page.addScriptTag({ path: AXE });
  // Run in the page as an expression: this test's TypeScript knows Node, not the DOM.
  const violations = await page.evaluate<string[]>(
    `axe.run(document, ${JSON.stringify(AXE_RULES)}).then((found) => found.violations.map((v) =>
      v.id + ' (' + v.impact + '): ' + v.help + ' at ' + v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')))`,
  );
  assert.deepEqual(violations, [], `accessibility of the ${name} screen`);
}

function findChromium(): string | null {
  for (const name of ['chromium', 'chromium-browser', 'google-chrome']) {
    try {
      return execFileSync('which', [name], { encoding: 'utf8' }).trim() || null;
    } catch {
      // not this one
    }
  }
  return null;
}

const executable = findChromium();
if (!executable) console.log('SKIPPED: Cairn Explorer browser test (no chromium on this machine; apt-get install chromium)');

describe('Cairn Explorer in a browser', { skip: executable ? false : 'SKIPPED: no chromium on this machine' }, () => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  let operationId = '';
  const api = <T>(method: string, path: string, body?: unknown) => server.call<T>(method, path, body, { authorization: `Bearer ${KEY}` });
  const shot = (name: string) => shoot(page, name);
  /** Waits until the bank picker shows this bank (the list of banks loads after the screen). */
  const bankShown = (bank: string) =>
    page.waitForFunction(`document.querySelector('select[id$="-bank"]')?.value === ${JSON.stringify(bank)}`);
  /** Opens a screen from the navigation and waits until it shows (its heading), so nothing acts on the last one. */
  const openScreen = async (name: string) => {
    await page.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name, exact: true }).click();
    await page.getByRole('heading', { level: 1, name, exact: true }).waitFor();
  };

  before(async () => {
    mkdirSync(SHOTS, { recursive: true });
    server = await startServer({ env: { CAIRN_API_KEY: KEY } });
    await api('POST', '/v1/banks', { id: 'demo', mission: 'Remember what Lena is working on' });
    const retained = await api('POST', '/v1/banks/demo/memories', {
      items: [
        { content: 'Lena started a new job at a solar panel company in Valencia.', speaker: 'Lena', timestamp: '2024-03-04T09:00:00Z' },
        { content: 'She is learning Spanish every evening with an app.', speaker: 'Lena', timestamp: '2024-03-05T19:00:00Z' },
        { content: 'Her manager Pablo asked her to lead the battery storage project.', speaker: 'Lena', timestamp: '2024-04-10T10:00:00Z' },
      ],
    });
    assert.equal(retained.status, 200);
    assert.equal((await api('POST', '/v1/banks/demo/consolidate?wait=true')).status, 200);
    browser = await chromium.launch({ executablePath: executable!, args: ['--no-sandbox'] });
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  test('the key prompt: refused key, then the right one', async () => {
    await page.goto(`${server.url}/ui`);
    const key = page.getByLabel('API key');
    await key.fill('wrong');
    await key.press('Enter'); // the form submits from the keyboard
    await page.getByRole('alert').filter({ hasText: 'refused' }).waitFor();
    await shot('key-prompt');
    await key.fill(KEY);
    await page.getByRole('button', { name: 'Open' }).click();
    await page.getByRole('heading', { name: 'Banks' }).waitFor();
  });

  test('banks: counts, create, edit the mission, delete after confirming; the API agrees each time', async () => {
    const demo = page.locator('tr[data-bank="demo"]');
    await demo.waitFor();
    assert.match(await demo.innerText(), /Remember what Lena is working on/);
    const cells = await demo.locator('td.num').allInnerTexts();
    assert.ok(Number(cells[0]) >= 3, `facts counted: ${cells}`);
    assert.ok(Number(cells[1]) >= 1, `observations counted: ${cells}`);
    await shot('banks');

    await page.getByLabel('Id').fill('scratch');
    await page.getByLabel('Mission', { exact: true }).fill('A bank to delete');
    await page.getByRole('button', { name: 'Create bank' }).click();
    await page.locator('tr[data-bank="scratch"]').waitFor();
    assert.equal((await api<{ mission: string }>('GET', '/v1/banks/scratch')).body.mission, 'A bank to delete');

    await page.getByRole('button', { name: 'Edit scratch' }).click();
    await page.locator('#mission-scratch').fill('Edited in the explorer');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.locator('tr[data-bank="scratch"]').filter({ hasText: 'Edited in the explorer' }).waitFor();
    assert.equal((await api<{ mission: string }>('GET', '/v1/banks/scratch')).body.mission, 'Edited in the explorer');

    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Delete scratch' }).click();
    await page.locator('tr[data-bank="scratch"]').waitFor({ state: 'detached' });
    assert.equal((await api('GET', '/v1/banks/scratch')).status, 404);
  });

  test('recall debugger: results with each arm rank and score, how the query was read, time per arm', async () => {
    await openScreen('Recall debugger');
    await page.getByLabel('Bank', { exact: true }).selectOption('demo');
    await page.getByLabel('Query').fill('Which project does Lena lead?');
    await page.getByRole('button', { name: 'Recall' }).click();
    const first = page.locator('table.results tbody tr').first();
    await first.waitFor();
    const rows = await page.locator('table.results tbody tr').allInnerTexts();
    assert.ok(
      rows.some((r) => r.includes('battery storage project')),
      `the fact about the project is listed: ${rows.join(' | ')}`,
    );
    const headers = await page.locator('table.results thead th').allInnerTexts();
    for (const arm of ['semantic', 'keyword', 'graph', 'temporal', 'passage']) assert.ok(headers.includes(arm), `${arm} column`);
    assert.match(await first.locator('td[data-arm="keyword"]').innerText(), /#\d+|–/);
    assert.match(await page.locator('ul.bars').innerText(), /semantic[\s\S]*ms/);
    assert.match(await page.getByRole('region', { name: 'How the query was read' }).innerText(), /Budget/);
    await shot('recall');
  });

  test('memory: a timeline of facts, the source passage with the sentence marked, delete a fact and see its tombstone', async () => {
    await openScreen('Memory');
    await page.getByLabel('Bank', { exact: true }).selectOption('demo');
    const timeline = page.locator('ol.timeline li');
    await timeline.first().waitFor();
    const texts = await timeline.allInnerTexts();
    assert.ok(texts.length >= 3, `facts on the timeline: ${texts.length}`);
    assert.match(texts[0], /said 2024-03-04/, 'the earliest first');
    assert.ok(
      texts.some((t) => /happened 2024-03-05 · said 2024-03-05/.test(t)),
      'a fact with an occurred time shows both',
    );

    const pablo = page.locator('ol.timeline li', { hasText: 'battery storage project' }).first();
    await pablo.getByRole('button').click();
    const marked = page.locator('blockquote.passage mark');
    await marked.waitFor();
    assert.equal((await marked.textContent())?.trim(), 'Her manager Pablo asked her to lead the battery storage project.');

    // Filter by an entity: only facts naming it stay.
    const entity = page.getByLabel('Entity');
    const pabloOption = await entity.locator('option', { hasText: 'Pablo' }).getAttribute('value');
    assert.ok(pabloOption, 'Pablo is among the entities');
    await entity.selectOption(pabloOption);
    await page.waitForFunction("document.querySelectorAll('ol.timeline li').length === 1");
    const factId = await pablo.getAttribute('data-fact');
    await pablo.getByRole('button').click();
    await marked.waitFor();
    await shot('memory');

    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Delete fact' }).click();
    await page.locator(`ul.tombstones li[data-tombstone="${factId}"]`).waitFor();
    assert.equal((await api('GET', `/v1/banks/demo/facts/${factId}`)).status, 404, 'the API agrees the fact is gone');
    // Its entity named no other fact: the filter on it is lifted and the other facts show again.
    await page.waitForFunction("document.querySelectorAll('ol.timeline li').length >= 2");
    await shot('memory-deleted');
  });

  test('memory by session: an async retain of a second session, shown alone when its session is chosen', async () => {
    const started = await api<{ operationId: string }>('POST', '/v1/banks/demo/memories', {
      async: true,
      items: [
        { content: 'Lena flew to Lisbon for the storage conference.', session: 'lisbon-trip', timestamp: '2024-06-10T08:00:00Z' },
        { content: 'In Lisbon she met Ines from the grid operator.', session: 'lisbon-trip', timestamp: '2024-06-11T18:00:00Z' },
      ],
    });
    assert.equal(started.status, 202, JSON.stringify(started.body));
    operationId = started.body.operationId;
    await until(
      'the async retain to finish',
      async () => (await api<{ status: string }>('GET', `/v1/operations/${operationId}`)).body.status,
      (status) => status === 'succeeded',
    );
    const inSession = await api<{ facts: Array<{ id: string }> }>('GET', '/v1/banks/demo/facts?session=lisbon-trip');
    assert.ok(inSession.body.facts.length >= 2, JSON.stringify(inSession.body));

    // The memory screen is still open from the last test: reload it to read the new session.
    await page.reload();
    await page.getByLabel('Bank', { exact: true }).selectOption('demo');
    const session = page.getByLabel('Session');
    await session.locator('option', { hasText: 'lisbon-trip' }).waitFor({ state: 'attached' });
    await session.selectOption('lisbon-trip');
    await page.waitForFunction(`document.querySelectorAll('ol.timeline li').length === ${inSession.body.facts.length}`);
    const shown = await page.locator('ol.timeline li').evaluateAll((lis) => lis.map((li) => li.getAttribute('data-fact')));
    assert.deepEqual(new Set(shown), new Set(inSession.body.facts.map((f) => f.id)), 'only the facts of that session');
    await shot('memory-session');
  });

  test('entity graph: the API graph drawn, a node clicked on the canvas lists its facts and observations', async () => {
    type Graph = { nodes: Array<{ id: string; name: string }>; edges: unknown[] };
    const graph = (await api<Graph>('GET', '/v1/banks/demo/entities/graph?limit=150')).body;
    const lena = graph.nodes.find((n) => n.name === 'Lena');
    assert.ok(lena, `Lena among the entities: ${graph.nodes.map((n) => n.name)}`);

    await openScreen('Entity graph');
    await page.getByLabel('Bank', { exact: true }).selectOption('demo');
    const view = page.locator('.graph');
    await view.locator('canvas').first().waitFor();
    assert.equal(Number(await view.getAttribute('data-nodes')), graph.nodes.length, 'every node of the API graph');
    assert.equal(Number(await view.getAttribute('data-edges')), graph.edges.length, 'every edge of the API graph');
    assert.equal(await page.locator('nav.entity-list button').count(), graph.nodes.length);

    // A real click on the canvas, where sigma drew Lena's node.
    await page.waitForFunction(`JSON.parse(document.querySelector('.graph').dataset.positions || '{}')[${JSON.stringify(lena.id)}]`);
    const [x, y] = JSON.parse((await view.getAttribute('data-positions')) ?? '{}')[lena.id] as [number, number];
    const box = await view.boundingBox();
    assert.ok(box);
    await page.mouse.click(box.x + x, box.y + y);
    const panel = page.getByRole('region', { name: 'The chosen entity' });
    await panel.getByRole('heading', { name: 'Lena' }).waitFor();
    const facts = await api<{ facts: Array<{ id: string; kind: string }> }>('GET', `/v1/banks/demo/facts?entityId=${lena.id}&limit=200`);
    const own = facts.body.facts.filter((f) => f.kind !== 'observation').map((f) => f.id);
    await panel.locator('li[data-fact]').first().waitFor();
    assert.deepEqual(
      new Set(await panel.locator('li[data-fact]').evaluateAll((lis) => lis.map((li) => li.getAttribute('data-fact')))),
      new Set(own),
      "the entity's facts",
    );
    assert.equal(await page.locator(`nav.entity-list button[data-entity="${lena.id}"]`).getAttribute('aria-pressed'), 'true');
    const observations = await api<{ facts: Array<{ id: string; text: string }> }>(
      'GET',
      `/v1/banks/demo/facts?entityId=${lena.id}&kind=observation`,
    );
    assert.ok(observations.body.facts.length >= 1, 'consolidation formed an observation about Lena');
    const listed = panel.locator('li[data-observation]');
    assert.deepEqual(
      await listed.evaluateAll((lis) => lis.map((li) => li.getAttribute('data-observation'))),
      observations.body.facts.map((o) => o.id),
    );
    await shot('entities');
    // An observation opens on its audit screen.
    await listed.first().getByRole('link').click();
    await page
      .getByRole('complementary', { name: 'The chosen observation' })
      .getByRole('heading', { name: observations.body.facts[0].text })
      .waitFor();
  });

  test('the address holds the bank: a picker changes it, the navigation keeps it, a new address is followed', async () => {
    await api('POST', '/v1/banks', { id: 'second' });
    await api('POST', '/v1/banks/second/memories', {
      items: [
        { content: 'Marta sailed from Oslo to Bergen.', timestamp: '2024-07-01T10:00:00Z' },
        { content: `Wilhelmina ${'Supercalifragilistic'.repeat(100)} visited Tokyo with Marta.`, timestamp: '2024-07-02T10:00:00Z' },
      ],
    });
    await openScreen('Entity graph');
    await page.getByLabel('Bank', { exact: true }).selectOption('second');
    await page.waitForFunction("location.hash === '#/entities/second'");
    await page.locator('nav.entity-list button', { hasText: 'Marta' }).waitFor();
    // One unbroken word two thousand characters long wraps instead of widening the page.
    const wide = () => page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');
    await page.locator('nav.entity-list button', { hasText: 'Wilhelmina' }).first().click();
    await page.getByRole('region', { name: 'The chosen entity' }).locator('li[data-fact]').first().waitFor();
    assert.ok((await wide()) <= 0, `the entity screen overflows by ${await wide()} px`);
    await openScreen('Memory');
    await page.locator('ol.timeline li', { hasText: 'Wilhelmina' }).getByRole('button').click();
    await page.locator('blockquote.passage mark').waitFor();
    assert.ok((await wide()) <= 0, `the memory screen overflows by ${await wide()} px`);
    assert.equal(await page.evaluate('location.hash'), '#/memory/second', 'the navigation keeps the chosen bank');
    await bankShown('second');
    await page.locator('ol.timeline li', { hasText: 'Marta sailed' }).waitFor();
    // An address changed by hand (or by going back) is followed, not just the first one.
    await page.evaluate("location.hash = '#/memory/demo'");
    await page.locator('ol.timeline li', { hasText: 'Lena' }).first().waitFor();
    await bankShown('demo');
    assert.equal(await page.locator('ol.timeline li', { hasText: 'Marta' }).count(), 0, 'no fact of the other bank');
    await page.evaluate("location.hash = '#/entities/no-such-bank'");
    await page.getByRole('alert').filter({ hasText: 'no-such-bank' }).waitFor();
    assert.equal(await page.locator('p.loading').count(), 0, 'a failed load is not shown as loading');
  });

  test('reflect: an answer with the memories it cites', async () => {
    await openScreen('Reflect');
    await page.getByLabel('Bank', { exact: true }).selectOption('demo');
    await page.getByLabel('Question').fill('Where does Lena work?');
    await page.getByRole('button', { name: 'Ask' }).click();
    await page.locator('p.answer').waitFor();
    const cited = page.locator('ol.cited li');
    await cited.first().waitFor();
    const texts = await cited.allInnerTexts();
    assert.ok(
      texts.some((t) => t.includes('solar panel company')),
      `the cited memories: ${texts.join(' | ')}`,
    );
    // Each cited id is one the API's reflect rests on.
    const answered = await api<{ basedOn: { facts: string[]; observations: string[] } }>('POST', '/v1/banks/demo/reflect', {
      query: 'Where does Lena work?',
    });
    const ids = [...answered.body.basedOn.facts, ...answered.body.basedOn.observations];
    for (const id of await cited.evaluateAll((items) => items.map((li) => li.getAttribute('data-cited'))))
      assert.ok(ids.includes(id ?? ''), `${id} is cited by the API too`);
    await shot('reflect');
  });

  test('observations: the evidence chain down to the sentence, and the history', async () => {
    await openScreen('Observations');
    await page.getByLabel('Bank', { exact: true }).selectOption('demo');
    const first = page.locator('ol.timeline li').first();
    await first.waitFor();
    const id = await first.getAttribute('data-observation');
    await first.getByRole('button').click();
    await page.waitForFunction(`location.hash === '#/observations/demo/${id}'`); // the address names it: Back returns to it
    const supporting = page.getByRole('region', { name: 'Supporting' });
    await supporting.locator('li').first().waitFor();
    const chain = await api<{ supporting: Array<{ fact: { id: string }; source: { sentence: string } | null }> }>(
      'GET',
      `/v1/banks/demo/observations/${id}`,
    );
    const shown = await supporting.locator('li').evaluateAll((items) => items.map((li) => li.getAttribute('data-evidence')));
    assert.deepEqual(
      shown,
      chain.body.supporting.map((l) => l.fact.id),
      'the supporting facts the API lists',
    );
    const sentence = chain.body.supporting[0].source?.sentence ?? '';
    assert.ok(sentence.length > 0);
    assert.equal((await supporting.locator('mark').first().textContent())?.trim(), sentence.trim(), 'the source sentence');
    assert.ok((await page.locator('ol.history li[data-revision="created"]').count()) >= 1, 'the history starts with its creation');
    const why = await api<{ stale: boolean; observation: { proofCount: number } }>('GET', `/v1/banks/demo/why/${id}`);
    assert.equal(await page.locator('[data-stale]').getAttribute('data-stale'), String(why.body.stale), 'staleness as the API says');
    assert.match(
      await page.getByRole('complementary', { name: 'The chosen observation' }).innerText(),
      new RegExp(`proof count ${why.body.observation.proofCount}`),
    );
    await shot('observations');
  });

  test('threads: messages, observations and reflections by generation, the context against a budget, working memory', async () => {
    // Small thresholds so the offline observer and reflector run within a short conversation.
    const settings = await api('PATCH', '/v1/banks/demo/thread-settings', {
      messageTokens: 120,
      bufferTokens: false,
      observationTokens: 120,
      reflectionConsolidationThreshold: 2,
    });
    assert.equal(settings.status, 200, JSON.stringify(settings.body));
    const topics = ['the heat pump installer', 'the Valencia office move', 'the battery storage tender', 'Spanish lessons'];
    for (let i = 0; i < 26; i++) {
      const appended = await api('POST', '/v1/banks/demo/threads/lena-chat/messages', [
        {
          role: 'user',
          content: `Day ${i + 1}: Lena wrote about ${topics[i % 4]} and asked for a summary of step ${i + 1} of the plan.`,
          timestamp: new Date(Date.UTC(2024, 5, 1 + i, 9)).toISOString(),
        },
        {
          role: 'assistant',
          content: `Noted step ${i + 1} for ${topics[i % 4]}; the next review is on day ${i + 3}.`,
          timestamp: new Date(Date.UTC(2024, 5, 1 + i, 9, 5)).toISOString(),
        },
      ]);
      assert.equal(appended.status, 200, JSON.stringify(appended.body));
    }
    type Items = { items: Array<{ id: string; kind: string; generation: number }> };
    const items = await until(
      'a reflection of the thread',
      async () => (await api<Items>('GET', '/v1/banks/demo/threads/lena-chat/observations')).body.items,
      (list) => list.some((i) => i.kind === 'reflection'),
      60_000,
    );
    await api('POST', '/v1/banks/demo/threads/lena-chat/remember', { note: 'Lena prefers summaries as bullet points.' });

    await openScreen('Threads');
    await page.getByLabel('Bank', { exact: true }).selectOption('demo');
    await page.locator('li[data-thread="lena-chat"] button').click();
    const detail = page.getByRole('complementary', { name: 'The chosen thread' });
    await detail.getByRole('heading', { name: 'lena-chat' }).waitFor();
    // Every item the API lists, grouped: observations, then each reflection generation.
    const shownItems = await detail.locator('li[data-item]').evaluateAll((lis) => lis.map((li) => li.getAttribute('data-item')));
    assert.deepEqual(new Set(shownItems), new Set(items.map((i) => i.id)), 'the items the API lists');
    const generations = await detail
      .locator('section[data-generation]')
      .evaluateAll((ss) => ss.map((s) => s.getAttribute('data-generation')));
    assert.equal(generations[0], 'observation');
    assert.ok(generations.includes('reflection-1'), `reflection generations: ${generations}`);
    assert.match(await detail.innerText(), /Lena prefers summaries as bullet points/, 'the working memory');
    const status = await api<{ messages: { count: number } }>('GET', '/v1/banks/demo/threads/lena-chat/memory');
    assert.equal(await detail.locator('ol.messages li').count(), Math.min(50, status.body.messages.count), 'the newest messages');
    assert.match(await detail.innerText(), new RegExp(`the newest 50 of ${status.body.messages.count}`));

    // A budget typed in: the context is assembled against it, as the API assembles it.
    await page.getByLabel('Context budget (tokens)').fill('400');
    await page.getByRole('button', { name: 'Assemble context' }).click();
    const context = await api<{ totalTokens: number; maxTokens: number }>('GET', '/v1/banks/demo/threads/lena-chat/context?maxTokens=400');
    const budget = detail.getByLabel('Token budget');
    await budget.filter({ hasText: 'of a budget of 400' }).waitFor();
    assert.match(await budget.innerText(), new RegExp(`^${context.body.totalTokens} tokens of a budget of 400`));
    await shot('threads');
  });

  test('keyboard: each screen is reached from the navigation with Tab and Enter, focus shows, a query runs with Enter', async () => {
    await page.goto(`${server.url}/ui#/banks`);
    await page.getByRole('heading', { name: 'Banks' }).waitFor();
    const focused = () =>
      page.evaluate<{ text: string; outline: string }>(`(() => {
        const el = document.activeElement;
        const style = el ? getComputedStyle(el) : null;
        return { text: el?.textContent?.trim() ?? '', outline: style ? style.outlineStyle + ' ' + style.outlineWidth : '' };
      })()`);
    const screens = ['Recall debugger', 'Memory', 'Entity graph', 'Observations', 'Reflect', 'Threads', 'Consolidation', 'Usage', 'Banks'];
    for (const name of screens) {
      await page.evaluate('document.activeElement?.blur()');
      let now = await focused();
      for (let presses = 0; now.text !== name && presses < 12; presses++) {
        await page.keyboard.press('Tab');
        now = await focused();
      }
      assert.equal(now.text, name, `Tab reaches the ${name} link`);
      assert.doesNotMatch(now.outline, /^none|0px$/, `the focused ${name} link shows its focus (${now.outline})`);
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { level: 1, name }).waitFor();
    }
    await page.goto(`${server.url}/ui#/recall/demo`);
    await page.getByLabel('Query').focus();
    await page.keyboard.type('Where does Lena work?');
    await page.keyboard.press('Enter');
    await page.locator('table.results tbody tr').first().waitFor();
  });

  test('consolidation: a dead letter with its error, retried from the page, then the backlog run now', async () => {
    // A fact that failed consolidation for good, through the store calls a worker makes when a batch fails.
    await api('POST', '/v1/banks/demo/memories', {
      items: [{ content: 'Lena adopted a dog named Churro in May.', timestamp: '2024-05-02T08:00:00Z' }],
    });
    const claim = await server.store.claimUnconsolidated('demo', 'explorer-test', 10, 60_000);
    assert.ok(claim && claim.factIds.length >= 1);
    await server.store.failClaim('demo', 'explorer-test', claim.factIds, 'the model answered nonsense', 1, 0);

    await openScreen('Consolidation');
    const dead = page.locator('tr.dead li').first();
    await dead.waitFor();
    assert.match((await dead.textContent()) ?? '', /the model answered nonsense/);
    await shot('consolidation');
    // An address typed by hand that does not decode still opens the page (a blank page is no answer).
    await page.goto(`${server.url}/ui#/recall/%E0%A4`);
    await page.getByRole('heading', { name: 'Recall debugger' }).waitFor();
    await openScreen('Consolidation');
    await page.getByRole('button', { name: 'Retry all' }).click();
    await page.locator('tr.dead').waitFor({ state: 'detached' });
    const letters = await api<{ deadLetters: unknown[] }>('GET', '/v1/banks/demo/consolidation/dead-letters');
    assert.deepEqual(letters.body.deadLetters, [], 'the API agrees: nothing dead-lettered');

    // The async retain of the memory test, finished, with its progress.
    const operation = await api<{ progress: { done: number; total: number; chunks: { done: number; total: number } } }>(
      'GET',
      `/v1/operations/${operationId}`,
    );
    const row = page.locator(`tr[data-operation="${operationId}"]`);
    await row.waitFor();
    assert.equal(await row.getAttribute('data-status'), 'succeeded');
    const { done, total, chunks } = operation.body.progress;
    assert.match(await row.innerText(), new RegExp(`${done} / ${total} · chunks ${chunks.done} / ${chunks.total}`));

    const backlog = page.locator('tr[data-consolidation="demo"] td[data-field="backlog"]');
    assert.ok(Number(await backlog.textContent()) >= 1, 'the retried facts wait again');
    await page.getByRole('button', { name: 'Consolidate now: demo' }).click();
    await page.waitForFunction('document.querySelector(\'tr[data-consolidation="demo"] td[data-field="backlog"]\')?.textContent === \'0\'');
    assert.equal((await api<{ backlog: number }>('GET', '/v1/banks/demo/consolidation')).body.backlog, 0);

    // Work started while the page is open (by an agent, say) shows up without a reload.
    const later = await api<{ operationId: string }>('POST', '/v1/banks/second/memories', {
      async: true,
      items: [{ content: 'Marta bought a kayak in Bergen.', timestamp: '2024-07-05T10:00:00Z' }],
    });
    assert.equal(later.status, 202);
    await page.locator(`tr[data-operation="${later.body.operationId}"][data-status="succeeded"]`).waitFor({ timeout: 20_000 });
  });

  test('the key can be changed mid-session, back through the prompt', async () => {
    await page.getByRole('button', { name: 'Change API key' }).click();
    const key = page.getByLabel('API key');
    await key.fill(KEY);
    await key.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Consolidation' }).waitFor(); // back where it was
  });
});

test('the explorer page and its assets are served without the key; the API behind them still needs it', async () => {
  const server = await startServer({ env: { CAIRN_API_KEY: KEY } });
  try {
    const page = await fetch(`${server.url}/ui`);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /<script type="module" src="\/ui\/app.js">/);
    const script = await fetch(`${server.url}/ui/app.js`);
    assert.equal(script.status, 200);
    assert.match(script.headers.get('content-type') ?? '', /javascript/);
    assert.ok((await script.text()).length > 1000, 'the bundled page script');
    assert.equal((await fetch(`${server.url}/ui/app.css`)).status, 200);
    for (const path of ['/v1/banks', '/ui/../v1/banks', '/ui/other', '/metrics'])
      assert.equal((await fetch(`${server.url}${path}`)).status, 401, path);
  } finally {
    await server.close();
  }
});

describe('Cairn Explorer usage screen, with a model', { skip: executable ? false : 'SKIPPED: no chromium on this machine' }, () => {
  // The model here is a SCRIPTED FAKE speaking the OpenAI chat-completions protocol on 127.0.0.1: its replies and
  // token counts are the test's, so the ledger's figures are known.
  let llm: FakeLlmServer;
  let server: TestServer;
  let browser: Browser;
  before(async () => {
    llm = await startFakeLlmServer();
    server = await startServer({
      env: { CAIRN_API_KEY: KEY, ...llm.cairnEnv },
    });
    browser = await chromium.launch({ executablePath: executable!, args: ['--no-sandbox'] });
  });
  after(async () => {
    await browser?.close();
    await server?.close();
    await llm?.close();
  });

  test('usage: LLM calls, tokens and cost per operation and model, as a chart over time and a table', async () => {
    const api = <T>(method: string, path: string, body?: unknown) => server.call<T>(method, path, body, { authorization: `Bearer ${KEY}` });
    await api('POST', '/v1/banks', { id: 'llm' });
    const fact = (what: string, quote: string) => ({ what, kind: 'world', quote, entities: [{ name: 'Alice', type: 'person' }] });
    llm.script(
      reply.json({ facts: [fact('Alice moved to Berlin.', 'I moved to Berlin')] }, { prompt: 120, completion: 30 }),
      reply.json({ facts: [fact('Alice adopted a cat.', 'adopted a cat')] }, { prompt: 100, completion: 25 }),
    );
    const retained = await api('POST', '/v1/banks/llm/memories', {
      items: [
        { content: 'I moved to Berlin this month.', speaker: 'Alice', timestamp: '2024-05-20T10:00:00Z' },
        { content: 'Also, I adopted a cat.', speaker: 'Alice', timestamp: '2024-05-21T10:00:00Z' },
      ],
    });
    assert.equal(retained.status, 200, JSON.stringify(retained.body));
    const usage = await api<{ total: { calls: number; inputTokens: number; outputTokens: number } }>('GET', '/v1/banks/llm/usage');
    assert.equal(usage.body.total.calls, 2);

    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${server.url}/ui#/usage/llm`);
    await page.getByLabel('API key').fill(KEY);
    await page.getByRole('button', { name: 'Open' }).click();
    const chart = page.locator('figure.chart svg');
    await chart.waitFor();
    assert.equal(
      Number(await chart.getAttribute('data-total')),
      usage.body.total.inputTokens + usage.body.total.outputTokens,
      'tokens charted',
    );
    assert.ok(Number(await chart.getAttribute('data-bars')) >= 1);
    assert.ok((await chart.locator('rect').count()) >= 1, 'bars drawn');
    const row = page.locator('tr[data-usage="retain/scripted-model"]');
    assert.match(await row.innerText(), /retain\s+scripted-model[\s\S]*\b2\b[\s\S]*\b220\b[\s\S]*\b55\b/);
    await page.getByLabel('Show').selectOption('calls');
    await page.waitForFunction("document.querySelector('figure.chart svg')?.dataset.total === '2'");
    await shoot(page, 'usage');
    await page.close();
  });
});
