// The layout rule: what a folder of src/ offers other folders goes through its index.ts. A module may import any file
// of its own folder (subfolders included) and the top-level modules (engine.ts, log.ts, ...), but another folder only
// through that folder's index.ts. Tests may reach into internals; the composition root (compose.ts) picks adapters
// and so may import any file.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const SRC = dirname(fileURLToPath(import.meta.url));
const COMPOSITION_ROOT = 'compose.ts';

/** The folder of src/ a path (relative to src/) lies in, or null for a top-level module. */
const folderOf = (path: string): string | null => (path.includes(sep) ? path.split(sep)[0] : null);

/** Every import of another folder's file other than its index.ts, as "importer -> imported" (paths relative to src/). */
export function crossFolderImports(modules: ReadonlyMap<string, string>): string[] {
  const found: string[] = [];
  for (const [path, text] of modules) {
    if (path.endsWith('.test.ts') || path === COMPOSITION_ROOT) continue;
    // Static imports and re-exports, dynamic import() and import('...') types alike.
    for (const { fileName } of ts.preProcessFile(text, true, true).importedFiles) {
      if (!fileName.startsWith('.')) continue;
      const target = relative(SRC, resolve(SRC, dirname(path), fileName));
      const folder = folderOf(target);
      if (folder === null || folder === folderOf(path) || target === join(folder, 'index.ts')) continue;
      found.push(`${path} -> ${target}`);
    }
  }
  return found;
}

function sources(dir: string, out = new Map<string, string>()): Map<string, string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) sources(path, out);
    else if (entry.name.endsWith('.ts')) out.set(relative(SRC, path), readFileSync(path, 'utf8'));
  }
  return out;
}

test('modules import other folders only through their index.ts', () => {
  assert.deepEqual(crossFolderImports(sources(SRC)), []);
});

test("the check finds an import past a folder's index.ts, in every form, and allows the rest", () => {
  const modules = new Map([
    [
      'recall/recall.ts',
      "import { retain } from '../retain/pipeline.ts';\nimport type { Fact } from '../core/index.ts';\nimport { x } from './arms/x.ts';",
    ],
    [
      'recall/arms/x.ts',
      "export { y } from '../../store/sqlite/store.ts';\nimport { z } from '../types.ts';\nimport { log } from '../../log.ts';",
    ],
    ['engine.ts', "const m = await import('./consolidate/worker.ts');\ntype T = import('./core/types.ts').Fact;"],
    ['compose.ts', "import { SqliteStore } from './store/sqlite/store.ts';"],
    ['retain/pipeline.test.ts', "import { SqliteStore } from '../store/sqlite/store.ts';"],
  ]);
  assert.deepEqual(crossFolderImports(modules).sort(), [
    'engine.ts -> consolidate/worker.ts',
    'engine.ts -> core/types.ts',
    'recall/arms/x.ts -> store/sqlite/store.ts',
    'recall/recall.ts -> retain/pipeline.ts',
  ]);
});
