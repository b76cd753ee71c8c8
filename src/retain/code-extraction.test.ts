// The offline extractor on code-bearing messages (fixtures/code-messages.json: a coding assistant's conversation about
// a Node/PostgreSQL/Redis chat app on Kubernetes and a Python data pipeline, with fenced and inline code, lists,
// tables and stack traces), chunked as retain chunks them: no entity is a piece of code, the libraries, tools and
// services named are entities, no fact is code, and code's identifiers reach the facts around it as keyword terms;
// a time of day is no entity, "Node.js" is software and not a file, and "API design" is no organization.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { chunkText } from './chunking.ts';
import type { ExtractedFact } from './extractor.ts';
import { OfflineExtractor } from './offline-extractor.ts';

interface Message {
  role: 'user' | 'assistant';
  content: string;
}

const messages = JSON.parse(readFileSync(new URL('./fixtures/code-messages.json', import.meta.url), 'utf8')) as Message[];

/** Each message's facts, their spans made offsets in the message. */
async function extractAll(): Promise<Array<{ message: Message; facts: ExtractedFact[] }>> {
  const extractor = new OfflineExtractor();
  const out: Array<{ message: Message; facts: ExtractedFact[] }> = [];
  for (const message of messages) {
    const facts: ExtractedFact[] = [];
    for (const piece of chunkText(message.content)) {
      const found = await extractor.extract({
        bankId: 'b',
        text: piece.text,
        speaker: message.role,
        fromAgent: message.role === 'assistant',
        timestamp: '2024-03-04T10:00:00.000Z',
        context: null,
      });
      facts.push(...found.map((f) => ({ ...f, start: f.start + piece.offset, end: f.end + piece.offset })));
    }
    out.push({ message, facts });
  }
  return out;
}

const extracted = extractAll();

const KEYWORDS = [
  'const',
  'let',
  'var',
  'function',
  'return',
  'import',
  'export',
  'from',
  'require',
  'def',
  'class',
  'self',
  'async',
  'await',
  'new',
  'this',
  'if',
  'else',
  'try',
  'catch',
  'except',
  'null',
  'true',
  'false',
  'none',
];

/** Code the old extractor took for names (and a few more any NLP would): none may be an entity. */
const FORBIDDEN = [
  'const',
  '});',
  'res.status(500).json',
  'require',
  'console.log',
  'app.listen',
  'socket.on',
  'io.on',
  'jwt.verify',
  'pd.read_csv',
  'df',
  'err',
  'res',
  'conn',
  'Pool',
  'Server',
  'Object',
  'Module',
  'Error',
  'TCPConnectWrap',
  'STDIN WITH',
  'READY   STATUS             RESTARTS   AGE',
  'UPGRADE FAILED',
  'ObjectMeta',
  'Traceback',
  'UnicodeDecodeError',
  'ECONNREFUSED',
  'ERR_CONNECTION_REFUSED',
  'JWT_SECRET',
  "I'd",
  "Kubernetes I'd",
];

/** Libraries, tools, services and files the conversation names: each must be an entity. */
const REQUIRED = [
  'Express',
  'Socket.io',
  'Node.js',
  'PostgreSQL',
  'Redis',
  'ioredis',
  'Docker',
  'Kubernetes',
  'kubectl',
  'Helm',
  'nginx',
  'pg_dump',
  'pg_restore',
  'gsutil',
  'JWT',
  'OAuth2',
  'HS256',
  'GitHub Actions',
  'Jest',
  'Airflow',
  'pandas',
  'SQLAlchemy',
  'charset-normalizer',
  'Vite',
  'docker-compose.yml',
  'values.yaml',
  'redis.conf',
  'ghcr.io',
];

test('no entity found in the code-bearing messages is a piece of code or a language keyword', async () => {
  const names = new Set((await extracted).flatMap(({ facts }) => facts.flatMap((f) => f.entities.map((e) => e.name))));
  for (const name of names) {
    assert.doesNotMatch(name, /[(){};=]|=>/, `entity "${name}" holds code punctuation`);
    assert.ok(!KEYWORDS.includes(name.toLowerCase()), `entity "${name}" is a language keyword`);
  }
  for (const junk of FORBIDDEN) assert.ok(!names.has(junk), `entity "${junk}" is code, not a name`);
});

test('the libraries, tools, services and files the messages name are entities', async () => {
  const keys = new Set((await extracted).flatMap(({ facts }) => facts.flatMap((f) => f.entities.map((e) => e.name.toLowerCase()))));
  const missing = REQUIRED.filter((name) => !keys.has(name.toLowerCase()));
  assert.deepEqual(missing, [], `missing entities: ${missing.join(', ')}`);
});

test('no time of day is an entity, ".js" projects are software, files stay files, "API design" is no organization', async () => {
  const entities = (await extracted).flatMap(({ facts }) => facts.flatMap((f) => f.entities));
  // "the 3 PM sync", "at 10 a.m.": neither the marker nor a name it would open ("PM sync") is an entity, so no "PM"
  // is left to join "PM.Review" (the entity that shares its first word) when mentions are resolved.
  assert.deepEqual(
    entities.filter((e) => /^[ap]\.?m\b/i.test(e.name) && e.name !== 'PM.Review'),
    [],
  );
  assert.ok(entities.some((e) => e.name === 'PM.Review'));
  // Node.js, Vue.js, Next.js name projects; package.json, docker-compose.yml, values.yaml and redis.conf are files.
  for (const project of ['Node.js', 'Vue.js', 'Next.js']) {
    const typed = entities.filter((e) => e.name === project).map((e) => e.type);
    assert.ok(typed.length > 0, project);
    assert.deepEqual([...new Set(typed)], ['software'], project);
  }
  for (const file of ['package.json', 'docker-compose.yml', 'values.yaml', 'redis.conf'])
    assert.ok(
      entities.some((e) => e.name === file && e.type === 'file'),
      file,
    );
  // The tagger takes the acronym for an organization and pulls in the noun after it; "API" alone stays, untyped.
  assert.deepEqual(
    entities.filter((e) => e.name.startsWith('API ')),
    [],
  );
  assert.ok(entities.some((e) => e.name === 'API' && e.type === null));
});

test('no fact is code: facts stay out of fenced blocks and read as prose', async () => {
  for (const { message, facts } of await extracted) {
    const fenced = [...message.content.matchAll(/^[ \t]*```[^\n]*\n[\s\S]*?^[ \t]*```/gm)].map((m) => ({
      start: m.index,
      end: m.index + m[0].length,
    }));
    for (const f of facts) {
      const inCode = fenced.reduce((n, c) => n + Math.max(0, Math.min(f.end, c.end) - Math.max(f.start, c.start)), 0);
      assert.equal(inCode, 0, `fact inside code: ${f.text}`);
      const symbols = (f.text.match(/[{}()[\];=<>]/g) ?? []).length;
      assert.ok(symbols / f.text.length < 0.1, `fact reads as code: ${f.text}`);
      assert.doesNotMatch(f.text, /^\s*at |```/, `fact holds a trace or a fence: ${f.text}`);
    }
  }
});

test('code gives its identifiers to the sentence introducing it; lists, tables and error lines are units of their own', async () => {
  const all = (await extracted).flatMap(({ facts }) => facts);
  const fact = (start: string): ExtractedFact => {
    const found = all.find((f) => f.text.startsWith(start));
    assert.ok(found, `a fact starting "${start}"`);
    return found;
  };
  // The sentence before the backup script ("This is the script:" joined to the one before it, a fragment): the
  // script's commands become its terms and entities.
  const script = fact('In Kubernetes user would like a CronJob instead. This is the script:');
  for (const term of ['pg_dump', 'gsutil', 'bash']) assert.ok(script.terms?.includes(term), `${term} in ${script.terms?.join(' ')}`);
  assert.ok(script.entities.some((e) => e.name === 'pg_dump'));
  // Inline code is a term of its sentence, and an error code a term only.
  const refused = fact('The browser console shows');
  assert.ok(refused.terms?.includes('ERR_CONNECTION_REFUSED'));
  assert.ok(!refused.entities.some((e) => e.name === 'ERR_CONNECTION_REFUSED'));
  // A list item without a period; a table row read with its header; the error line of a trace pasted without fences.
  fact('Node.js v18.15.0 with Express 4.18 and Socket.io 4.7');
  fact('Setting: presence TTL; Value: 60 s; Why: two missed heartbeats allowed');
  fact('Method: COPY via psycopg; Time: 35 s');
  const error = fact('Error: JWT_SECRET is not set');
  assert.deepEqual(
    error.entities.map((e) => e.name),
    ['user'],
  );
  assert.ok(!all.some((f) => f.text.includes('loadConfig')), "no fact from the trace's frames");
});

/** The facts of one user message (retained on 2024-06-01), read by the offline extractor. */
const userFacts = (text: string): Promise<ExtractedFact[]> =>
  new OfflineExtractor().extract({
    bankId: 'b',
    text,
    speaker: 'user',
    fromAgent: false,
    timestamp: '2024-06-01T00:00:00.000Z',
    context: null,
  });

test('a log pasted alone: each message a chunk logs once, dated by its stamp; the frames under a line are terms only', async () => {
  const log = [
    'INFO service started on port 8080',
    '2024-05-01 10:00:01 WARN retrying connection to db-primary',
    '2024-05-01 10:00:02 WARN retrying connection to db-primary',
    '2024-05-01 10:00:03 WARN retrying connection to db-primary',
    '2024-05-01 10:00:04 ERROR pool exhausted after 30s',
    '    at Pool.acquire (pool.js:10:5)',
    '    at main (index.js:3:1)',
    '',
    'The retry storm ended there.',
    '',
    '2024-05-01 10:05:00 WARN retrying connection to db-primary', // logged before in the chunk, in another block
  ].join('\n');
  const facts = await userFacts(log);
  assert.deepEqual(
    facts.map((f) => f.text),
    [
      'INFO service started on port 8080',
      '2024-05-01 10:00:01 WARN retrying connection to db-primary',
      '2024-05-01 10:00:04 ERROR pool exhausted after 30s',
      'The retry storm ended there.',
    ],
  );
  assert.ok(facts[2].occurredStart?.startsWith('2024-05-01'), `the stamp dates the line: ${facts[2].occurredStart}`);
  assert.ok(facts[2].terms?.includes('Pool.acquire'), 'a frame under the line is a term');
});

test('a log line holding only a stamp or a level, an error logged again, and a frame naming an error give no fact', async () => {
  const texts = async (text: string) => (await userFacts(text)).map((f) => f.text);
  assert.deepEqual(await texts('2024-05-01 10:00:01\n2024-05-01 10:00:02'), []);
  assert.deepEqual(await texts('DEBUG:\nINFO service listening on 9090\nERROR:\nWARN:   '), ['INFO service listening on 9090']);
  assert.deepEqual(
    await texts(
      '2024-05-01 10:00:01 ERROR db connection lost\n\nWe restarted the database.\n\n2024-05-01 10:05:00 ERROR db connection lost',
    ),
    ['2024-05-01 10:00:01 ERROR db connection lost', 'We restarted the database.'],
  );
  assert.deepEqual(
    await texts('2024-05-01 10:00:01 WARN slow render detected\n    at ErrorBoundary.render (app.js:10:5)\n    at main (app.js:1:1)'),
    ['2024-05-01 10:00:01 WARN slow render detected'],
  );
  assert.deepEqual(
    await texts(
      'Traceback (most recent call last):\n  File "a.py", line 3, in <module>\n    raise ValueError("bad input")\nValueError: bad input',
    ),
    ['ValueError: bad input'],
  );
});

test('a log pasted in a fence gives its lines as facts; code in a fence still gives none', async () => {
  const text = [
    'Logs from the deploy:',
    '',
    '```',
    '2024-05-01 10:00:01 INFO billing worker started on port 7070',
    '2024-05-01 10:00:02 WARN cache cold',
    '```',
    '',
    'And the config:',
    '',
    '```js',
    'const port = 7070;',
    'console.log("INFO starting");',
    '```',
  ].join('\n');
  const facts = await userFacts(text);
  assert.deepEqual(
    facts.map((f) => f.text),
    [
      'Logs from the deploy:',
      '2024-05-01 10:00:01 INFO billing worker started on port 7070',
      '2024-05-01 10:00:02 WARN cache cold',
      'And the config:',
    ],
  );
  assert.ok(facts[3].terms?.includes('console.log'), "the code's identifiers are its introducing sentence's terms");
});

test('any chunk: facts lie inside it, and no entity holds code punctuation', async () => {
  const extractor = new OfflineExtractor();
  const piece = fc.oneof(
    fc.constantFrom(
      '```py\n',
      '\n```\n',
      '\n- ',
      '\n| a | b |\n|---|---|\n| `x()` | Redis |',
      '\n    at f (a.js:1:2)',
      ' `res.json({ a })` ',
      ' Socket.io',
      ' {',
      '});',
      '. ',
    ),
    fc.string({ maxLength: 12 }),
  );
  await fc.assert(
    fc.asyncProperty(fc.array(piece, { maxLength: 30 }), async (parts) => {
      const text = parts.join('');
      for (const f of await extractor.extract({
        bankId: 'b',
        text,
        speaker: 'Sam',
        fromAgent: false,
        timestamp: '2024-03-04T10:00:00.000Z',
        context: null,
      })) {
        assert.ok(f.start >= 0 && f.start <= f.end && f.end <= text.length, JSON.stringify({ text, f }));
        for (const e of f.entities) assert.doesNotMatch(e.name, /[(){};=]/, JSON.stringify({ text, e }));
      }
    }),
    { numRuns: 200 },
  );
});
