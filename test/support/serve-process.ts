// Test support: the real `cairn serve` as a child process on a free port (embedded store in a data directory), for
// tests that kill it (SIGKILL) and start another on the same data. `preload` starts a process that loads the code
// and waits; `go` then serves, so a test can hide the load time of the next server behind the current one's work.
// Tests that start many servers can compile the sources once (compileSources) and run them on plain node.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { TEST_CACHE_DIR } from './server.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const WARM = fileURLToPath(new URL('./warm-serve.mjs', import.meta.url));

function sourcesUnder(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) sourcesUnder(path, out);
    else if ((name.endsWith('.ts') && !name.endsWith('.test.ts')) || name.endsWith('.cjs')) out.push(path);
  }
  return out;
}

/**
 * src/ transpiled to JavaScript (TypeScript's own transpiler; relative `.ts` imports rewritten to `.js`; `.cjs` copied) into
 * `dir`, beside links to node_modules and migrations, so each module finds what it finds in the repository. A
 * server started from it runs on plain node, without tsx's module hooks: about half the CPU of a start.
 */
export function compileSources(dir: string): string {
  for (const file of sourcesUnder(join(ROOT, 'src'))) {
    if (file.endsWith('.cjs')) {
      // Plain JavaScript already (a worker thread's entry): copied as it is.
      mkdirSync(dirname(join(dir, relative(ROOT, file))), { recursive: true });
      writeFileSync(join(dir, relative(ROOT, file)), readFileSync(file));
      continue;
    }
    const js = ts.transpileModule(readFileSync(file, 'utf8'), {
      fileName: file,
      compilerOptions: {
        module: ts.ModuleKind.ESNext,
        target: ts.ScriptTarget.ES2022,
        rewriteRelativeImportExtensions: true,
        esModuleInterop: true,
      },
    }).outputText;
    const dest = join(dir, relative(ROOT, file)).replace(/\.ts$/, '.js');
    mkdirSync(dirname(dest), { recursive: true });
    writeFileSync(dest, js);
  }
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  symlinkSync(join(ROOT, 'migrations'), join(dir, 'migrations'));
  return dir;
}

export interface Served {
  child: ChildProcess;
  pid: number;
  base: string;
  call<T>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }>;
  /** Everything the process wrote on stdout and stderr so far. */
  output(): string;
}

export interface Preloaded {
  child: ChildProcess;
  /** Starts serving; resolves once the server listens. */
  go(): Promise<Served>;
  /** Kills the process (if it runs) and waits until it exited. */
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/**
 * A process that has loaded `cairn serve` and waits for go(). Log level info: the listening line is read from it.
 * `compiled`: a compileSources directory to run instead of the TypeScript sources.
 */
export function preload(dataDir: string, env: Record<string, string> = {}, compiled?: string): Preloaded {
  const child = spawn(process.execPath, compiled ? [WARM, compiled] : ['--import', 'tsx', WARM], {
    cwd: ROOT,
    env: {
      ...process.env,
      CAIRN_DATA_DIR: dataDir,
      CAIRN_CACHE_DIR: TEST_CACHE_DIR,
      CAIRN_PORT: '0',
      CAIRN_WORKER: 'off',
      CAIRN_LOG_LEVEL: 'info',
      ...env,
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let seen = '';
  const waiters: Array<() => void> = [];
  const onData = (chunk: Buffer): void => {
    seen += chunk.toString('utf8');
    for (const w of waiters.splice(0)) w();
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const until = (pattern: RegExp): Promise<RegExpExecArray> =>
    new Promise((resolve, reject) => {
      const check = (): void => {
        const m = pattern.exec(seen);
        if (m) resolve(m);
        else if (child.exitCode !== null || child.signalCode !== null)
          reject(new Error(`cairn serve exited (${child.exitCode ?? child.signalCode}):\n${seen}`));
        else waiters.push(check);
      };
      void exited.then(check);
      check();
    });
  return {
    child,
    async go() {
      await until(/^loaded$/m);
      child.stdin?.write('go\n');
      const [, base] = await until(/listening on (http:\/\/\S+)/);
      const call = async <T>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> => {
        const r = await fetch(base + path, {
          method,
          headers: { 'content-type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        const text = await r.text();
        return { status: r.status, body: (text ? JSON.parse(text) : null) as T };
      };
      return { child, pid: child.pid as number, base, call, output: () => seen };
    },
    async kill(signal: NodeJS.Signals = 'SIGKILL') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}

/** Starts `cairn serve` on the data directory and waits until it listens. */
export function serve(
  dataDir: string,
  env: Record<string, string> = {},
): Promise<Served & { kill(signal?: NodeJS.Signals): Promise<void> }> {
  const p = preload(dataDir, env);
  return p.go().then((s) => ({ ...s, kill: p.kill }));
}

export type StoredFact = { id: string; text: string; kind: string; source: { documentId: string } | null };

/** Every fact of the bank (observations included unless a kind is given; superseded ones too), through the paged facts route. */
export async function allFacts(s: Pick<Served, 'call'>, bank: string, kind?: string): Promise<StoredFact[]> {
  const out: StoredFact[] = [];
  for (let offset = 0; ; offset += 1000) {
    const page = await s.call<{ facts: StoredFact[] }>(
      'GET',
      `/v1/banks/${bank}/facts?limit=1000&offset=${offset}&includeSuperseded=true${kind ? `&kind=${kind}` : ''}`,
    );
    if (page.status !== 200) throw new Error(`GET facts of ${bank}: ${page.status} ${JSON.stringify(page.body)}`);
    out.push(...page.body.facts);
    if (page.body.facts.length < 1000) return out;
  }
}
