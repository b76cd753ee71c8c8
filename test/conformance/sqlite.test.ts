// The store conformance suite on the embedded store (a SQLite file in a temporary directory, reopened for the
// restart test). Runs in CI.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteStore } from '../../src/store/sqlite/store.ts';
import { storeConformance } from './suite.ts';

const dir = mkdtempSync(join(tmpdir(), 'cairn-conformance-'));

storeConformance('sqlite (embedded)', {
  open: async () => new SqliteStore({ dataDir: dir }),
  cleanup: async () => rmSync(dir, { recursive: true, force: true }),
});
