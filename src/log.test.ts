// The logger follows the level it is configured with (config.log), not the environment.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from './config/index.ts';
import { configureLog, log } from './log.ts';

/** What `run` writes to stderr. */
function stderrOf(run: () => void): string {
  const write = process.stderr.write;
  let text = '';
  process.stderr.write = ((chunk: string | Uint8Array) => {
    text += String(chunk);
    return true;
  }) as typeof process.stderr.write;
  try {
    run();
  } finally {
    process.stderr.write = write;
  }
  return text;
}

const everyLevel = (): void => {
  log.debug('d-line');
  log.info('i-line');
  log.warn('w-line');
  log.error('e-line');
};

test('lines below the configured level are left out', (t) => {
  t.after(() => configureLog(loadConfig({ CAIRN_LOG_LEVEL: 'warn' }).log));
  configureLog(loadConfig({ CAIRN_LOG_LEVEL: 'warn' }).log);
  const warn = stderrOf(everyLevel);
  assert.doesNotMatch(warn, /d-line|i-line/);
  assert.match(warn, /warn {2}w-line\n.*error e-line\n$/);
  configureLog(loadConfig({ CAIRN_LOG_LEVEL: 'debug' }).log);
  assert.equal(stderrOf(everyLevel).split('\n').filter(Boolean).length, 4);
  configureLog(loadConfig({ CAIRN_LOG_LEVEL: 'silent' }).log);
  assert.equal(stderrOf(everyLevel), '');
  configureLog(loadConfig({}).log);
  assert.match(stderrOf(everyLevel), /^(?!.*d-line).*info {2}i-line/s);
});
