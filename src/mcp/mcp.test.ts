// Cairn's MCP server driven by the official SDK client over both transports: streamable HTTP on a real `cairn
// serve` app (with an API key) and stdio against a spawned `cairn mcp` process. Each retains, recalls what it
// retained, reflects with citations and forgets; HTTP also refuses a missing key, a bank other than the bound one
// and bad arguments.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { startServer, TEST_CACHE_DIR, type TestServer } from '../../test/support/server.ts';
import { tempDirs } from '../../test/support/cli.ts';
import { TOOLS } from './tools.ts';

const KEY = 'mcp-test-key';

async function httpClient(url: string, key: string | null, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'cairn-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: key === null ? headers : { ...headers, authorization: `Bearer ${key}` } },
  });
  await client.connect(transport);
  return client;
}

const text = (r: unknown): string => ((r as CallToolResult).content[0] as { text: string }).text;
const json = <T>(r: unknown): T => {
  assert.ok(!(r as CallToolResult).isError, `tool failed: ${text(r)}`);
  return JSON.parse(text(r)) as T;
};
type Recalled = { results: Array<{ id: string; text: string }> };

/** retain → recall → reflect → forget through one client, on a bank it need not name when the connection is bound. */
async function roundTrip(client: Client, bank: Record<string, string>): Promise<void> {
  const retained = json<{ status: string; result: { factIds: string[] } }>(
    await client.callTool({
      name: 'retain',
      arguments: {
        ...bank,
        items: [
          { content: 'Alice moved to Lisbon in March 2024 to work on tidal energy.', timestamp: '2024-03-10', documentId: 'move' },
          { content: 'Bob adopted a grey cat called Pixel.', timestamp: '2024-04-02', documentId: 'cat' },
        ],
      },
    }),
  );
  assert.equal(retained.status, 'succeeded');
  assert.ok(retained.result.factIds.length >= 2);

  const recalled = json<Recalled>(
    await client.callTool({ name: 'recall', arguments: { ...bank, query: 'Where does Alice live?', limit: 5 } }),
  );
  const lisbon = recalled.results.find((r) => r.text.includes('Lisbon'));
  assert.ok(lisbon, `recall found the move: ${JSON.stringify(recalled.results.map((r) => r.text))}`);

  const reflected = json<{ answer: string; basedOn: { facts: string[]; observations: string[] } }>(
    await client.callTool({ name: 'reflect', arguments: { ...bank, query: 'Where did Alice move?' } }),
  );
  assert.ok([...reflected.basedOn.facts, ...reflected.basedOn.observations].includes(lisbon.id), 'reflect cites the recalled fact');

  const why = json<Record<string, unknown>>(await client.callTool({ name: 'why', arguments: { ...bank, id: lisbon.id } }));
  assert.match(JSON.stringify(why), /Lisbon/);

  json(await client.callTool({ name: 'forget_document', arguments: { ...bank, document: 'move', reason: 'asked to forget' } }));
  const after = json<Recalled>(
    await client.callTool({ name: 'recall', arguments: { ...bank, query: 'Where does Alice live?', limit: 5 } }),
  );
  assert.ok(!after.results.some((r) => r.id === lisbon.id || r.text.includes('Lisbon')), 'the forgotten document is gone');
  assert.ok(
    after.results.some((r) => r.text.includes('Pixel')),
    'the rest of the bank stays',
  );
}

describe('MCP over streamable HTTP (cairn serve, with an API key)', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({ env: { CAIRN_API_KEY: KEY } });
  });
  after(() => server.close());

  test('lists every tool with schemas and annotations: reads marked read-only, deletions destructive', async () => {
    const client = await httpClient(`${server.url}/mcp`, KEY);
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), TOOLS.map((t) => t.name).sort());
    const byName = new Map(tools.map((t) => [t.name, t]));
    for (const name of ['recall', 'reflect', 'list_banks', 'why', 'thread_context', 'consolidation_status'])
      assert.equal(byName.get(name)?.annotations?.readOnlyHint, true, name);
    for (const name of ['forget_fact', 'forget_document']) assert.equal(byName.get(name)?.annotations?.destructiveHint, true, name);
    assert.equal(byName.get('retain')?.annotations?.readOnlyHint, false);
    const recall = byName.get('recall')!.inputSchema as { required?: string[]; properties: Record<string, unknown> };
    assert.deepEqual(recall.required?.sort(), ['bank', 'query']);
    assert.ok('occurredFrom' in recall.properties && 'maxTokens' in recall.properties);
    await client.close();
  });

  test('a bank created through MCP, then retain, recall, reflect (cited) and forget on a connection bound to it', async () => {
    const admin = await httpClient(`${server.url}/mcp`, KEY);
    json(await admin.callTool({ name: 'create_bank', arguments: { id: 'alice', mission: 'Remember what friends are up to' } }));
    const { banks } = json<{ banks: Array<{ id: string }> }>(await admin.callTool({ name: 'list_banks', arguments: {} }));
    assert.ok(banks.some((b) => b.id === 'alice'));
    const bound = await httpClient(`${server.url}/mcp/banks/alice`, KEY);
    await roundTrip(bound, {});
    const mission = await bound.readResource({ uri: 'cairn://banks/alice/mission' });
    assert.equal((mission.contents[0] as { text: string }).text, 'Remember what friends are up to');
    await admin.close();
    await bound.close();
  });

  test('the bank may come per call or by header; a bound connection refuses another bank', async () => {
    const admin = await httpClient(`${server.url}/mcp`, KEY);
    json(await admin.callTool({ name: 'create_bank', arguments: { id: 'other' } }));
    await roundTrip(admin, { bank: 'other' });
    const byHeader = await httpClient(`${server.url}/mcp`, KEY, { 'x-cairn-bank': 'other' });
    const found = json<Recalled>(await byHeader.callTool({ name: 'recall', arguments: { query: 'grey cat' } }));
    assert.ok(found.results.some((r) => r.text.includes('Pixel')));
    await byHeader.close();
    const bound = await httpClient(`${server.url}/mcp/banks/alice`, KEY);
    const refused = (await bound.callTool({ name: 'recall', arguments: { bank: 'other', query: 'cat' } })) as CallToolResult;
    assert.equal(refused.isError, true);
    assert.match(text(refused), /bound to bank "alice"/);
    await admin.close();
    await bound.close();
  });

  test('a bound connection sees and creates its own bank only, and reads operations of that bank only', async () => {
    const admin = await httpClient(`${server.url}/mcp`, KEY);
    json(await admin.callTool({ name: 'create_bank', arguments: { id: 'secret', mission: 'private plans' } }));
    const started = json<{ operationId: string }>(
      await admin.callTool({
        name: 'retain',
        arguments: { bank: 'secret', items: [{ content: 'Plan B is hidden.' }], async: true, operationId: 'job-1' },
      }),
    );
    const bound = await httpClient(`${server.url}/mcp/banks/alice`, KEY);
    const { banks } = json<{ banks: Array<{ id: string; mission: string }> }>(await bound.callTool({ name: 'list_banks', arguments: {} }));
    assert.deepEqual(
      banks.map((b) => b.id),
      ['alice'],
    );
    const create = (await bound.callTool({ name: 'create_bank', arguments: { id: 'eve' } })) as CallToolResult;
    assert.equal(create.isError, true);
    assert.match(text(create), /bound to bank "alice"/);
    for (const id of [started.operationId, 'job-1']) {
      const op = (await bound.callTool({ name: 'get_operation', arguments: { id } })) as CallToolResult;
      assert.equal(op.isError, true, `another bank's operation ${id} is not found`);
      assert.match(text(op), /^404 /);
    }
    const own = json<{ status: string }>(await admin.callTool({ name: 'get_operation', arguments: { bank: 'secret', id: 'job-1' } }));
    assert.ok(['queued', 'running', 'succeeded'].includes(own.status));
    await admin.close();
    await bound.close();
  });

  test('ids that cannot be a URL path segment are refused with a reason; escaped resource ids are read', async () => {
    const client = await httpClient(`${server.url}/mcp/banks/alice`, KEY);
    for (const id of ['..', '.', '\ud800']) {
      const r = (await client.callTool({ name: 'forget_document', arguments: { document: id } })) as CallToolResult;
      assert.equal(r.isError, true);
      assert.match(text(r), /only dots|lone surrogate/);
    }
    const dots = (await client.callTool({
      name: 'retain',
      arguments: { items: [{ content: 'x y z', documentId: '..' }] },
    })) as CallToolResult;
    assert.match(text(dots), /documentId must not be only dots/);
    const dotThread = (await client.callTool({ name: 'thread_context', arguments: { thread: '.' } })) as CallToolResult;
    assert.equal(dotThread.isError, true, 'not another thread read in its place');
    for (const thread of ['a b', 'é/1']) {
      json(
        await client.callTool({
          name: 'thread_append',
          arguments: { thread, messages: [{ role: 'user', content: `hello from ${thread}` }] },
        }),
      );
      const read = await client.readResource({ uri: `cairn://banks/alice/threads/${encodeURIComponent(thread)}/context` });
      assert.match((read.contents[0] as { text: string }).text, new RegExp(`hello from ${thread}`));
    }
    await client.close();
  });

  test('bad arguments and REST errors come back as tool errors naming what to fix', async () => {
    const client = await httpClient(`${server.url}/mcp`, KEY);
    const missing = (await client.callTool({ name: 'recall', arguments: { bank: 'nobody-here', query: 'x' } })) as CallToolResult;
    assert.equal(missing.isError, true);
    assert.match(text(missing), /^404 .*nobody-here/);
    const blank = (await client.callTool({ name: 'retain', arguments: { bank: 'alice', items: [] } })) as CallToolResult;
    assert.equal(blank.isError, true);
    assert.match(text(blank), /items/);
    const badTime = (await client.callTool({
      name: 'recall',
      arguments: { bank: 'alice', query: 'x', occurredFrom: 'soon' },
    })) as CallToolResult;
    assert.match(text(badTime), /occurredFrom must be an ISO 8601/);
    await client.close();
  });

  test('unknown arguments are tool errors naming them; recall takes asOf and perSource as REST does', async () => {
    const client = await httpClient(`${server.url}/mcp`, KEY);
    json(await client.callTool({ name: 'create_bank', arguments: { id: 'mcp1' } }));
    json(
      await client.callTool({ name: 'retain', arguments: { bank: 'mcp1', items: [{ content: 'Carol flew to Paris for a conference.' }] } }),
    );
    const typo = (await client.callTool({
      name: 'recall',
      arguments: { bank: 'mcp1', query: 'Paris', tpyes: ['world'] },
    })) as CallToolResult;
    assert.equal(typo.isError, true);
    assert.match(text(typo), /tpyes/);
    const listTypo = (await client.callTool({ name: 'list_banks', arguments: { limit: 1 } })) as CallToolResult;
    assert.equal(listTypo.isError, true);
    assert.match(text(listTypo), /limit/);
    const retainTypo = (await client.callTool({
      name: 'retain',
      arguments: { bank: 'mcp1', items: [{ content: 'x y z.' }], asnyc: true },
    })) as CallToolResult;
    assert.equal(retainTypo.isError, true);
    assert.match(text(retainTypo), /asnyc/);
    // A "__proto__" key (an own key of the JSON arguments) is refused as REST refuses it, not silently dropped.
    for (const args of [
      `{"bank":"mcp1","items":[{"content":"Proto.","metadata":{"__proto__":"kept?","other":"ok"}}]}`,
      `{"id":"mcp-proto","config":{"__proto__":{"x":1}}}`,
      // At the top level the SDK's record of arguments skipped the key before any schema saw it.
      `{"id":"mcp-proto","__proto__":{"mission":"sneaky"}}`,
    ]) {
      const name = args.includes('items') ? 'retain' : 'create_bank';
      const proto = (await client.callTool({ name, arguments: JSON.parse(args) })) as CallToolResult;
      assert.equal(proto.isError, true, `${name} with "__proto__" is refused`);
      assert.match(text(proto), /__proto__/);
    }
    const listed = json<unknown>(await client.callTool({ name: 'list_banks', arguments: {} }));
    assert.ok(!JSON.stringify(listed).includes('mcp-proto'), 'the bank was not created');
    const now = json<Recalled>(await client.callTool({ name: 'recall', arguments: { bank: 'mcp1', query: 'Paris' } }));
    assert.ok(now.results.length > 0);
    const before = json<Recalled>(
      await client.callTool({ name: 'recall', arguments: { bank: 'mcp1', query: 'Paris', asOf: '1970-01-01' } }),
    );
    assert.deepEqual(before.results, [], 'nothing was known in 1970');
    const badAsOf = (await client.callTool({
      name: 'recall',
      arguments: { bank: 'mcp1', query: 'Paris', asOf: 'then' },
    })) as CallToolResult;
    assert.equal(badAsOf.isError, true);
    assert.match(text(badAsOf), /asOf must be an ISO 8601/);
    json(await client.callTool({ name: 'recall', arguments: { bank: 'mcp1', query: 'Paris', perSource: 0 } }));
    const badPerSource = (await client.callTool({
      name: 'recall',
      arguments: { bank: 'mcp1', query: 'Paris', perSource: -1 },
    })) as CallToolResult;
    assert.equal(badPerSource.isError, true);
    assert.match(text(badPerSource), /perSource/);
    const { tools } = await client.listTools();
    const recall = tools.find((t) => t.name === 'recall')!.inputSchema as {
      properties: Record<string, unknown>;
      additionalProperties?: unknown;
    };
    assert.ok('asOf' in recall.properties && 'perSource' in recall.properties && 'validAt' in recall.properties);
    assert.equal(recall.additionalProperties, false);
    await client.close();
  });

  test('without the API key, or with a wrong one, the MCP endpoint refuses the connection', async () => {
    for (const key of [null, 'wrong']) {
      await assert.rejects(httpClient(`${server.url}/mcp`, key), /401|unauthorized|API key/i);
    }
    const raw = await fetch(`${server.url}/mcp/banks/${encodeURIComponent('no spaces!')}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: '{}',
    });
    assert.equal(raw.status, 400, 'a bank id breaking the rule is a 400');
    for (const method of ['GET', 'DELETE']) {
      const r = await fetch(`${server.url}/mcp`, { method, headers: { authorization: `Bearer ${KEY}`, accept: 'text/event-stream' } });
      assert.equal(r.status, 405, `${method}: stateless, so no stream and no session`);
      assert.equal(r.headers.get('allow'), 'POST');
    }
    let deep = '1';
    for (let i = 0; i < 5000; i++) deep = `[${deep}]`;
    const nested = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"create_bank","arguments":{"config":{"x":${deep}}}}}`,
    });
    assert.equal(nested.status, 400);
    assert.match(await nested.text(), /deeper than/);
    for (const [method, body] of [
      ['POST', 'not json'],
      ['POST', '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"recall"}}'],
    ] as const) {
      const r = await fetch(`${server.url}/mcp`, {
        method,
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body,
      });
      assert.ok(r.status < 500, `${method} ${body ?? ''}: ${r.status}`);
    }
  });
});

/** A `cairn mcp` process with these arguments and environment, and the SDK's stdio client connected to it. */
async function stdioClient(args: string[], env: Record<string, string>): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [fileURLToPath(new URL('../../bin/cairn.mjs', import.meta.url)), 'mcp', ...args],
    env: {
      PATH: process.env.PATH ?? '',
      CAIRN_CACHE_DIR: TEST_CACHE_DIR,
      CAIRN_WORKER: 'off',
      CAIRN_RERANKER: 'none',
      CAIRN_LOG_LEVEL: 'warn',
      ...env,
    },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  const client = new Client({ name: 'cairn-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

describe('MCP over stdio (cairn mcp)', () => {
  const dirs = tempDirs('cairn-mcp-');
  test('a spawned cairn mcp --bank process on its own store: retain, recall, reflect, forget, thread memory', async () => {
    const { client, stderr } = await stdioClient(['--bank', 'desk'], { CAIRN_DATA_DIR: dirs() });
    try {
      // The bound bank does not exist yet: create it (create_bank takes no bank binding), then use it unnamed.
      json(await client.callTool({ name: 'create_bank', arguments: { id: 'desk' } }));
      await roundTrip(client, {});
      json(
        await client.callTool({
          name: 'thread_append',
          arguments: { thread: 't1', messages: [{ role: 'user', content: 'I prefer tea to coffee.' }] },
        }),
      );
      json(await client.callTool({ name: 'thread_remember', arguments: { thread: 't1', note: 'The user prefers tea.' } }));
      const context = json<Record<string, unknown>>(await client.callTool({ name: 'thread_context', arguments: { thread: 't1' } }));
      assert.match(JSON.stringify(context), /tea/);
    } catch (err) {
      throw new Error(`${(err as Error).message}\nstderr of cairn mcp:\n${stderr()}`);
    } finally {
      await client.close();
    }
  });

  test('cairn mcp --url relays to a running Cairn with CAIRN_API_KEY; a wrong key gets the 401 as a tool error', async () => {
    const server = await startServer({ env: { CAIRN_API_KEY: KEY } });
    try {
      const remote = await stdioClient(['--url', server.url, '--bank', 'far'], { CAIRN_API_KEY: KEY, CAIRN_DATA_DIR: dirs() });
      json(await remote.client.callTool({ name: 'create_bank', arguments: { id: 'far' } }));
      await roundTrip(remote.client, {});
      await remote.client.close();
      assert.ok((await server.engine.findBank('far')) !== null, 'the bank lives in the running Cairn');
      const wrong = await stdioClient(['--url', server.url], { CAIRN_API_KEY: 'wrong', CAIRN_DATA_DIR: dirs() });
      const refused = (await wrong.client.callTool({ name: 'list_banks', arguments: {} })) as CallToolResult;
      assert.equal(refused.isError, true);
      assert.match(text(refused), /^401 /);
      await wrong.client.close();
    } finally {
      await server.close();
    }
  });
});
