// Runs every *.test.ts under src/, test/ and clients/ with node's own test runner (through tsx), after a type check.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

function find(dir, out = []) {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name.startsWith('.')) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) find(path, out);
    else if (name.endsWith('.test.ts')) out.push(path);
  }
  return out;
}

const filter = process.argv.slice(2);
let files = [...find('src'), ...find('test'), ...find('clients')].sort();
if (filter.length) files = files.filter((f) => filter.some((p) => f.includes(p)));

if (!filter.length) {
  // The whole suite starts with the type check and Biome's lint and format check (biome.json).
  for (const [label, command, args] of [
    ['type check', 'npx', ['tsc', '--noEmit']],
    ['type check of the explorer page (browser types)', 'npx', ['tsc', '--noEmit', '-p', 'src/ui/app']],
    ['lint and format check (npx biome check --write fixes most)', 'npx', ['biome', 'ci', '.']],
  ]) {
    const step = spawnSync(command, args, { stdio: 'inherit' });
    if (step.status !== 0) {
      console.error(`${label} failed`);
      process.exit(step.status ?? 1);
    }
  }
}

const run = spawnSync(
  process.execPath,
  [
    '--import',
    'tsx',
    '--import',
    './test/support/log-level.ts',
    '--test',
    '--test-concurrency=1',
    '--test-timeout=180000',
    '--test-force-exit',
    '--test-reporter=spec',
    ...files,
  ],
  { stdio: 'inherit', env: { ...process.env, CAIRN_LOG_LEVEL: process.env.CAIRN_LOG_LEVEL ?? 'warn' } },
);
process.exit(run.status ?? 1);
