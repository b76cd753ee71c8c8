// The markup scanner: each kind of block is found with its span, code stays whole whatever it looks like inside,
// and plain conversation text is one paragraph of prose.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { inlineCode, isCodeLine, scanBlocks, withoutEmphasis } from './markup.ts';

/** The blocks as "kind: body" (a table as its rows' cells), to compare at a glance. */
const shape = (text: string): string[] =>
  scanBlocks(text).map((b) =>
    b.kind === 'table'
      ? `table: ${b.rows!.map((r) => r.cells.join('/')).join(' | ')}`
      : `${b.kind}${b.lang ? `(${b.lang})` : ''}: ${text.slice(b.body.start, b.body.end)}`,
  );

test('fenced code with ``` or ~~~ and a language, a fence right after a sentence, a fence inside a list item', () => {
  const text = [
    'Here is the server:',
    '```javascript',
    'const app = express();',
    '',
    '# not a heading',
    '```',
    '~~~ python',
    'import pandas as pd',
    '~~~',
    '1. Install it:',
    '   ```bash',
    '   npm install ioredis',
    '   ```',
  ].join('\n');
  assert.deepEqual(shape(text), [
    'prose: Here is the server:',
    'code(javascript): const app = express();\n\n# not a heading\n',
    'code(python): import pandas as pd\n',
    'list-item: Install it:',
    'code(bash):    npm install ioredis\n',
  ]);
});

test('an unclosed fence runs to the end; a text cut inside a code block starts with code up to its bare fence', () => {
  assert.deepEqual(shape('Try this:\n```js\nfoo();\nbar();'), ['prose: Try this:', 'code(js): foo();\nbar();']);
  const tail = "  socket.on('x', () => {\n    done();\n  });\n});\n```\n\nThat should fix the race.";
  assert.deepEqual(shape(tail), [`code: ${tail.slice(0, tail.indexOf('```'))}`, 'prose: That should fix the race.']);
  // Balanced fences: the first bare fence opens a block, however code-like the text before it looks.
  assert.deepEqual(shape('x = 1;\ny = 2;\n```\nplain\n```'), ['code: x = 1;\ny = 2;', 'code: plain\n']);
});

test('headings, list items with their continuation lines, tables, rules', () => {
  const text = [
    '### Step 1: Verify Versions',
    '**Summary of Steps:**',
    '- Ensure both sides use **Socket.io** 4.x,',
    '  even in tests.',
    '  - nested item',
    '2) numbered item',
    '---',
    '| Metric | Before | After |',
    '|--------|-------:|:-----:|',
    '| p95 latency | 120 ms | 40 ms |',
    '| errors | 3 \\| 4 | 0 |',
    'Afterwards, prose.',
  ].join('\n');
  assert.deepEqual(shape(text), [
    'heading: Step 1: Verify Versions',
    'heading: Summary of Steps:',
    'list-item: Ensure both sides use **Socket.io** 4.x,\n  even in tests.',
    'list-item: nested item',
    'list-item: numbered item',
    'table: Metric/Before/After | p95 latency/120 ms/40 ms | errors/3 \\| 4/0',
    'prose: Afterwards, prose.',
  ]);
});

test('stack traces and log lines, fenced or not, are traces; their indented lines belong to them', () => {
  const node =
    'Error: connect ECONNREFUSED 127.0.0.1:6379\n    at TCPConnectWrap.afterConnect [as oncomplete] (node:net:1494:16) {\n  errno: -111\n}';
  const python =
    "Traceback (most recent call last):\n  File \"/app/load.py\", line 48, in load\n    df = pd.read_csv(path)\nUnicodeDecodeError: 'utf-8' codec can't decode byte 0xe9";
  const logs = '2024-03-01 10:00:01 ERROR db: pool exhausted\n[WARN] retrying in 5s';
  for (const trace of [node, python, logs])
    assert.deepEqual(shape(`I get this:\n${trace}\nAny idea?`), ['prose: I get this:', `trace: ${trace}`, 'prose: Any idea?'], trace);
});

test('code pasted without fences: indented after a blank line, or two code lines in a row', () => {
  assert.deepEqual(shape('My config:\n\n    host: db\n    port: 5432\n\nThanks'), [
    'prose: My config:',
    'code:     host: db\n    port: 5432',
    'prose: Thanks',
  ]);
  const pasted = 'I wrote\nconst pool = new Pool({ max: 50 });\nmodule.exports = pool;\nand it hangs.';
  assert.deepEqual(shape(pasted), [
    'prose: I wrote',
    'code: const pool = new Pool({ max: 50 });\nmodule.exports = pool;',
    'prose: and it hangs.',
  ]);
});

test('conversation text is prose: words such as "let", "import", "return" and a colon or bracket do not make code', () => {
  for (const line of [
    'let me know how it goes!',
    'import the photos first, then return the camera (tomorrow).',
    'My favorite band: Coldplay :)',
    'Error handling is the part I always forget.',
    'we went to the lake (finally)',
    'Use the :: operator to reach a nested name.',
  ]) {
    assert.equal(isCodeLine(line), false, line);
    assert.deepEqual(shape(line), [`prose: ${line}`], line);
  }
  const turn = 'Hey Mel! Yesterday I went hiking.\nIt was great; the view was amazing.';
  assert.deepEqual(shape(turn), [`prose: ${turn}`]);
  for (const line of [
    'const x = require("x");',
    '});',
    'def load(path):',
    'app.listen(3000)',
    'SELECT id FROM users WHERE id = 1',
    'from sqlalchemy import create_engine',
    'let v = Vec::new();',
    'std::cout << x;',
    'xs = a[::2]',
  ])
    assert.equal(isCodeLine(line), true, line);
});

test('inline code spans and emphasis', () => {
  const text = 'Run `pg_dump -Fc` or ``a ` b``, then **check** the *output*.';
  assert.deepEqual(
    inlineCode(text).map((s) => text.slice(s.code.start, s.code.end)),
    ['pg_dump -Fc', 'a ` b'],
  );
  assert.equal(withoutEmphasis('**Redis**: a *fast* store, 2*3*4 and __init__ stay'), 'Redis: a fast store, 2*3*4 and __init__ stay');
});

test('a fence around prose (a journal entry, a letter) is read as prose; around a diagram or command output, as code', () => {
  const journal =
    '```\nDate: March 6, 2024\n\nToday was the funeral for my uncle. The service was beautiful.\n- Went for a walk in the park\n```';
  assert.deepEqual(shape(journal), [
    'prose: Date: March 6, 2024',
    'prose: Today was the funeral for my uncle. The service was beautiful.',
    'list-item: Went for a walk in the park',
  ]);
  const output = '```\n$ kubectl get pods\nNAME                READY   STATUS\nchat-api-7d9-2xkqp  0/1     CrashLoopBackOff\n```';
  assert.deepEqual(
    shape(output).map((b) => b.split(':')[0]),
    ['code'],
  );
  const diagram = '```\nY-axis\n|        *\n|        (1, 2)\n+------------ X-axis\n```';
  assert.deepEqual(
    shape(diagram).map((b) => b.split(':')[0]),
    ['code'],
  );
  // A fence naming a language is code, whatever it holds.
  assert.deepEqual(
    shape('```python\n# load the orders from the partner files every hour\n```').map((b) => b.split(':')[0]),
    ['code(python)'],
  );
});

/** Pieces markdown is made of, so that random texts hit fences, lists, tables, traces and code lines. */
const PIECES = [
  '```',
  '```js',
  '~~~',
  '\n',
  '\n\n',
  '    ',
  '- ',
  '1. ',
  '# ',
  '**',
  '`',
  '|',
  '|---|---|',
  ' at f (x.js:1:2)',
  'Error: no',
  'const a = 1;',
  '});',
  'Redis is fast.',
  'I went home',
  ':(',
  ' ',
  'x',
];

test('any text: blocks in order, inside the text, not overlapping, each body inside its block', () => {
  fc.assert(
    fc.property(fc.array(fc.oneof(fc.constantFrom(...PIECES), fc.string({ maxLength: 8 })), { maxLength: 60 }), (parts) => {
      const text = parts.join('');
      let last = 0;
      for (const b of scanBlocks(text)) {
        assert.ok(b.start >= last && b.start <= b.end && b.end <= text.length, JSON.stringify({ text, b }));
        assert.ok(b.body.start >= b.start && b.body.start <= b.body.end && b.body.end <= b.end, JSON.stringify({ text, b }));
        last = b.end;
      }
    }),
    { numRuns: 500 },
  );
});
