// The `cairn` command as a user runs it (bin/cairn.mjs in a child process, on an embedded store in a temp dir):
// every mistake is one line on stderr naming what to fix and a non-zero exit, never a stack trace.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TEST_CACHE_DIR } from './support/embed.ts';

const BIN = join(import.meta.dirname, '..', 'bin', 'cairn.mjs');

type Run = { code: number | null; stdout: string; stderr: string };

describe('cairn CLI errors', () => {
  let dir: string;
  const run = (...args: string[]): Promise<Run> => runIn(join(dir, 'data'), ...args);
  const runIn = (dataDir: string, ...args: string[]): Promise<Run> =>
    new Promise((resolve) => {
      execFile(
        process.execPath,
        [BIN, ...args],
        {
          cwd: dir,
          env: {
            ...process.env,
            CAIRN_DATA_DIR: dataDir,
            CAIRN_CACHE_DIR: TEST_CACHE_DIR,
            CAIRN_LOG_LEVEL: 'warn',
            CAIRN_WORKER: 'off',
          },
        },
        (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
      );
    });

  /** One line on stderr matching `pattern`, no stack frames, a non-zero exit. */
  const oneLineError = (r: Run, pattern: RegExp, what: string): void => {
    assert.notEqual(r.code, 0, `${what}: exit code`);
    assert.doesNotMatch(r.stderr, /^\s+at /m, `${what}: stack trace in ${r.stderr}`);
    const lines = r.stderr.trim().split('\n');
    assert.equal(lines.length, 1, `${what}: stderr is ${JSON.stringify(r.stderr)}`);
    assert.match(lines[0], pattern, what);
  };

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'cairn-cli-'));
    writeFileSync(join(dir, 'bad-json.jsonl'), '{"content":"Alice lives in Oslo."}\n{"content":"Bob lives in Rome."}\n{bad\n');
    writeFileSync(join(dir, 'bad-item.jsonl'), '{"content":"Alice lives in Oslo."}\n\n{"content":"   "}\n');
    writeFileSync(join(dir, 'bad.json'), '{"items": [');
    writeFileSync(join(dir, 'good.jsonl'), '{"content":"Alice lives in Oslo.","timestamp":"2024-06-01T12:00:00Z"}\n');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('cairn mcp: a bank id, or a --url that is no http URL or carries credentials, is refused before starting', async () => {
    oneLineError(await run('mcp', '--bank', '../x'), /^cairn: bank id '\.\.\/x' is not allowed/, 'bad bank');
    oneLineError(await run('mcp', '--url', 'ftp://x'), /^cairn: --url must be an http or https URL, not ftp:/, 'ftp');
    oneLineError(await run('mcp', '--url', 'not a url'), /^cairn: --url 'not a url' is not a URL/, 'not a URL');
    oneLineError(
      await run('mcp', '--url', 'http://u:p@h'),
      /^cairn: --url must not carry credentials; set the API key in CAIRN_API_KEY/,
      'creds',
    );
  });

  test('unknown bank', async () => {
    oneLineError(await run('recall', 'Where does Alice live?', '--bank', 'nope'), /bank 'nope'/, 'recall on an unknown bank');
  });

  test('missing file', async () => {
    oneLineError(await run('retain', 'missing.jsonl', '--bank', 'b'), /missing\.jsonl/, 'retain of a missing file');
  });

  test('a bad JSONL line is named by its line number; a bad JSON file by its name', async () => {
    oneLineError(await run('retain', 'bad-json.jsonl', '--bank', 'b'), /bad-json\.jsonl.*line 3/, 'a line that is not JSON');
    oneLineError(
      await run('retain', 'bad-item.jsonl', '--bank', 'b'),
      /bad-item\.jsonl.*line 3.*content/,
      'a line that is not a valid item',
    );
    oneLineError(await run('retain', 'bad.json', '--bank', 'b'), /bad\.json.*JSON/, 'a JSON file that does not parse');
  });

  test('bad option values', async () => {
    oneLineError(await run('recall', 'x', '--bank', 'b', '-l', 'abc'), /limit/, '-l abc');
    oneLineError(await run('recall', 'x', '--bank', 'b', '-l', '0'), /limit/, '-l 0');
    oneLineError(await run('recall', 'x', '--bank', 'b', '--query-time', 'nope'), /query-time/, '--query-time nope');
    oneLineError(await run('recall', 'x', '--bank', 'b', '--per-source', '-1'), /per-source/, '--per-source -1');
    oneLineError(await run('serve', '--port', 'http'), /port/, '--port http');
    oneLineError(await run('memory', 'bogus', '--bank', 'b', '--thread', 't'), /bogus/, 'unknown memory action');
    oneLineError(await run('bogus'), /bogus/, 'unknown command');
  });

  test('serve on a port in use exits with one line, before it opens the data directory', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as AddressInfo;
    try {
      const dataDir = join(dir, 'serve-data');
      oneLineError(
        await runIn(dataDir, 'serve', '--port', String(port)),
        /^cairn: cannot listen on 127\.0\.0\.1:\d+: .*EADDRINUSE/,
        'port in use',
      );
      assert.equal(existsSync(dataDir), false, 'the data directory was neither created nor opened');
    } finally {
      taken.close();
    }
  });

  test('a good run still works and exits 0', async () => {
    const retained = await run('retain', 'good.jsonl', '--bank', 'b');
    assert.equal(retained.code, 0, retained.stderr);
    const recalled = await run('recall', 'Where does Alice live?', '--bank', 'b', '-l', '3', '--query-time', '2024-07-01');
    assert.equal(recalled.code, 0, recalled.stderr);
    assert.match(recalled.stdout, /Oslo/);
    const passages = await run('recall', 'Where does Alice live?', '--bank', 'b', '--per-source', '1', '--passages', '--json');
    assert.equal(passages.code, 0, passages.stderr);
    const body = JSON.parse(passages.stdout) as { passages: Array<{ text: string }> };
    assert.ok(
      body.passages.some((p) => /Oslo/.test(p.text)),
      'the whole passages come back',
    );
  });
});
