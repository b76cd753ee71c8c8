// Identifiers in code and in technical prose: the keyword terms a piece of code contributes to the facts told
// around it (names with dots, underscores, dashes or inner capitals, versions, error codes, string literals),
// and the things it names (libraries it imports or installs, tools its shell lines run, images it builds on, file
// names). Variables, language keywords and punctuation are terms at most, never names.

export interface NamedThing {
  name: string;
  /** 'software' for libraries, tools, services and images; 'file' for file names. */
  type: 'software' | 'file';
}

/** Words of programming languages (and their most common built-ins) that are never names of things. */
const CODE_WORDS = new Set(
  `abstract and as assert async await bool boolean break byte case catch char class const constructor continue def
  default del delete do double elif else enum except export extends false final finally float for from func function
  global goto if implements import in instanceof int interface is lambda let long new nil none nonlocal not null number
  object or package pass private protected public raise return self short static str string struct super switch
  symbol synchronized this throw throws true try type typeof undefined var void volatile while with yield require
  module exports console log println printf print len list dict set tuple map array promise date error math json`.split(/\s+/),
);

/** Whether a word is a keyword or common built-in of a programming language ("const", "def", "await", "String"). */
export const isCodeWord = (word: string): boolean => CODE_WORDS.has(word.toLowerCase());

/** Characters and shapes no name of a thing has: brackets, operators, statement ends, quotes. */
const CODE_FRAGMENT = /[(){}[\];=<>`"|\\]|=>|^[^\p{L}\p{N}]+$|^[^\p{L}\p{N}@.]|\s{2,}/u;

/** Whether a candidate entity name is a piece of code or a language keyword rather than the name of something. */
export function isCodeFragment(name: string): boolean {
  const t = name.trim();
  return t.length === 0 || CODE_FRAGMENT.test(t) || isCodeWord(t);
}

/** A word that is a name by its shape: inner capitals (PostgreSQL, GitHub), a digit after a capital (OAuth2, S3), a
 * dotted part (Socket.io, Node.js) or capitals only (JWT): no ordinary word is written so, even opening a sentence. */
const SHAPED = String.raw`\p{Lu}+\p{Ll}+\p{Lu}[\p{L}\p{N}]*|\p{Lu}\p{L}*\p{N}[\p{L}\p{N}]*|\p{Lu}[\p{L}\p{N}]*(?:\.\p{Ll}+)+|\p{Lu}{2,6}`;
const SHAPED_NAME = new RegExp(`^(?:${SHAPED})$`, 'u');
/** Capitals-only words that are not names. */
const NOT_NAMES = new Set([
  'OK',
  'OMG',
  'LOL',
  'WOW',
  'NOTE',
  'TODO',
  'FYI',
  'ASAP',
  'BTW',
  'PS',
  'YES',
  'NO',
  'HEY',
  'IMPORTANT',
  'UPDATE',
  'EDIT',
  'TLDR',
]);

export const isShapedName = (word: string): boolean => SHAPED_NAME.test(word) && !NOT_NAMES.has(word);

/** File names: a name and an extension code is kept in, or a file known by its name alone. */
const FILE_NAME =
  /^(?:[\w.-]+\/)*[\w.-]*\w\.(?:json|jsonc|ya?ml|toml|ini|cfg|conf|env|lock|js|mjs|cjs|jsx|ts|tsx|py|ipynb|rb|go|rs|java|kt|cs|cpp|cc|c|h|hpp|php|swift|sh|bash|zsh|ps1|sql|md|txt|csv|tsv|parquet|html|css|scss|xml|gradle|tf|proto|graphql|vue|svelte|log)$|^(?:Dockerfile|Makefile|Procfile|Gemfile|Jenkinsfile|Vagrantfile|\.env(?:\.\w+)?|\.gitignore|\.dockerignore|\.npmrc|\.eslintrc(?:\.\w+)?|\.prettierrc)$/;

/** Objects of the languages' runtimes, whose members look like file names ("console.log", "process.argv"). */
const RUNTIME_OBJECTS = new Set([
  'console',
  'process',
  'module',
  'window',
  'document',
  'self',
  'this',
  'math',
  'json',
  'os',
  'sys',
  'res',
  'req',
  'app',
]);

/**
 * A JavaScript project named by the ".js" convention: one capitalised word and ".js", no path (Node.js, Vue.js,
 * Next.js, Express.js, Chart.js, D3.js). Files are named in lower or camel case (server.js, authController.js), after
 * the class they hold with inner capitals (MessageService.js), or given with a path (src/Index.js). A file named by one
 * capitalised word (a React component's Header.js) written bare is taken for a project: rarer in conversations than
 * Node.js and its kin, and still an entity.
 */
const JS_PROJECT = /^\p{Lu}[\p{Ll}\p{N}]*\.js$/u;

/** Whether a word is a file name ("package.json", ".env"; not "console.log", a call, nor "Node.js", a project). */
export const isFileName = (word: string): boolean =>
  FILE_NAME.test(word) && !RUNTIME_OBJECTS.has(word.split('.')[0].toLowerCase()) && !JS_PROJECT.test(word);

/** Library names shaped like domain names: socket.io, next.js, chart.js (a file name would be lower-case too, but
 * these suffixes name projects far more often than files; a lower-case one that is also a file name is taken for a
 * file, see isFileName). */
const LIBRARY_NAME = /^[\w-]+\.(?:io|js)$/i;

export const isLibraryName = (word: string): boolean => LIBRARY_NAME.test(word);

/** Command-line tools common in developers' conversations: a command in inline code that starts with one of these
 * names it ("`kubectl get pods`"), where any other first word might be a variable. */
const KNOWN_TOOLS = new Set(
  `npm npx yarn pnpm node deno bun pip pip3 python python3 poetry conda pipenv uv docker docker-compose podman kubectl
  helm minikube kind k9s skaffold terraform ansible vagrant aws gcloud az git gh curl wget psql pg_dump pg_restore
  pg_ctl pg_dumpall mysql mysqldump mongo mongosh mongodump mongorestore redis-cli redis-server nginx systemctl
  journalctl ssh scp rsync cmake gcc clang cargo rustc rustup java javac mvn gradle dotnet ruby gem bundle rails php
  composer jest pytest vitest mocha cypress playwright eslint prettier tsc webpack vite pm2 nodemon certbot openssl
  jq ffmpeg heroku vercel netlify firebase supabase flyctl airflow dbt spark-submit celery gunicorn uvicorn alembic
  prisma sequelize knex flyway liquibase artillery k6 locust sentry-cli grafana-cli promtool`.split(/\s+/),
);

export const isKnownTool = (word: string): boolean => KNOWN_TOOLS.has(word.toLowerCase());

/** Tools whose names are no English word, so that prose written in lower case names them too ("put nginx in front"). */
const PROSE_TOOLS = `npm npx pnpm pip pip3 kubectl minikube psql pg_dump pg_restore pg_dumpall pg_ctl mysqldump mongosh mongodump
  mongorestore redis-cli redis-server nginx docker-compose systemctl journalctl gsutil gcloud terraform pm2 nodemon
  webpack eslint certbot openssl ffmpeg kubeadm kubelet k9s`.split(/\s+/);
const PROSE_TOOL = new RegExp(String.raw`\b(?:${PROSE_TOOLS.sort((a, b) => b.length - a.length).join('|')})\b`, 'g');

/** Tool names in prose: the words of the text that only name a tool (not part of a longer name: "docker-compose.yml",
 * "my-nginx"). */
export function toolsInProse(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(PROSE_TOOL)) {
    const before = text[m.index - 1] ?? ' ';
    const after = text.slice(m.index + m[0].length, m.index + m[0].length + 2);
    if (!/[\w.@/-]/.test(before) && !/^(?:[\w@/-]|\.\w)/.test(after)) out.push(m[0]);
  }
  return out;
}

/** Words shaped like names (see SHAPED_NAME) anywhere in a text, after a space, a bracket or a quote. */
const SHAPED_WORD = new RegExp(String.raw`(?<![\p{L}\p{N}_.-])(?:${SHAPED})(?![\p{L}\p{N}_-])`, 'gu');

/** The words of a text shaped like names: PostgreSQL, OAuth2, JWT, Socket.io. */
export function shapedNames(text: string): string[] {
  return [...text.matchAll(SHAPED_WORD)].map((m) => m[0]).filter((w) => !NOT_NAMES.has(w));
}

/** Modules that come with the language's runtime (Node, Python): importing them names nothing worth remembering. */
const STANDARD_MODULES = new Set(
  `fs path http https os util crypto events stream url child_process assert buffer net zlib readline cluster
  worker_threads querystring dns tls timers process sys json re time datetime typing collections logging math random
  pathlib subprocess functools itertools unittest dataclasses asyncio abc io csv uuid hashlib base64 argparse enum
  copy shutil glob tempfile threading traceback urllib socket pickle string textwrap signal contextlib operator
  statistics decimal fractions queue heapq bisect inspect importlib warnings weakref platform getpass secrets`.split(/\s+/),
);

/** Shell commands and built-ins that run no particular tool. */
const SHELL_WORDS = new Set(
  `cd ls ll echo export cat mkdir rm rmdir cp mv touch chmod chown source set unset grep egrep sed awk tail head less
  more sudo exit pwd which env true false sleep kill ps find xargs tee wc sort uniq cut tr if then fi for do done
  while else elif case esac function alias read printf test time nohup watch eval exec type history clear man open
  start call rem use`.split(/\s+/),
);

/** Languages whose code blocks are shell sessions: the first word of each command is a tool. */
const SHELL_LANGS = new Set(['bash', 'sh', 'shell', 'zsh', 'console', 'terminal', 'cmd', 'powershell', 'ps1', 'shell-session']);

/** A package as imported or installed, without version, extras or subpath: "socket.io-client@4.6.1" ->
 * "socket.io-client", "@nestjs/core/x" -> "@nestjs/core", "pandas[excel]>=2" -> "pandas". */
function packageName(spec: string): string | null {
  let s = spec.trim().replace(/^['"]|['"]$/g, '');
  // Relative paths, flags, URLs and node: built-ins name no package.
  if (!s || /^[./-]|^[a-z][\w+.-]*:/i.test(s)) return null;
  const scoped = s.startsWith('@');
  const parts = s.split('/');
  s = scoped ? parts.slice(0, 2).join('/') : parts[0];
  s = s
    .replace(/(?!^)@.*$/, '')
    .replace(/\[.*$/, '')
    .replace(/[=<>~!^].*$/, '');
  if (!/^@?[\w][\w.-]*(?:\/[\w.-]+)?$/.test(s) || s.length < 2) return null;
  if (STANDARD_MODULES.has(s) || /^\d/.test(s)) return null;
  return s;
}

const JS_IMPORTS: RegExp[] = [
  /\brequire\(\s*['"]([^'"\n]+)['"]\s*\)/g,
  /\bimport\s+(?:[\w*${}\s,]+\s+from\s+)?['"]([^'"\n]+)['"]/g,
  /\bimport\(\s*['"]([^'"\n]+)['"]\s*\)/g,
];
const PY_FROM = /^\s*from\s+([\w.]+)\s+import\b/gm;
const PY_IMPORT = /^\s*import\s+([\w.]+(?:\s+as\s+\w+)?(?:\s*,\s*[\w.]+(?:\s+as\s+\w+)?)*)\s*$/gm;
const INSTALL =
  /\b(?:npm\s+(?:i|install|add)|yarn\s+(?:global\s+)?add|pnpm\s+(?:add|i|install)|pip3?\s+install|python3?\s+-m\s+pip\s+install|poetry\s+add|conda\s+install|apt(?:-get)?\s+install|brew\s+(?:install|services\s+start)|gem\s+install|cargo\s+(?:add|install)|go\s+(?:get|install)|composer\s+require)\b([^\n;&|#]*)/g;
const IMAGE = /^\s*FROM\s+(?:--\S+\s+)?([\w./-]+)(?::[\w.-]+)?(?:\s+AS\s+\w+)?\s*$|\bimage:\s*['"]?([\w./-]+)(?::[\w.-]+)?/gim;

/** The packages an install command line installs (flags and what follows -r, -f, -c left out). */
function installed(args: string): string[] {
  const out: string[] = [];
  const words = args.trim().split(/\s+/);
  for (let i = 0; i < words.length; i++) {
    const w = words[i];
    if (/^-[rfce]$|^--(?:requirement|file|constraint|editable|index-url|extra-index-url)$/.test(w)) {
      i++;
      continue;
    }
    const name = packageName(w);
    if (name && !isCodeWord(name)) out.push(name);
  }
  return out;
}

/** The tools a shell line runs: the first word of each command (after sudo, env assignments and a prompt). */
export function commandsOf(line: string): string[] {
  const out: string[] = [];
  for (const part of line.replace(/^\s*(?:\$|>|PS[^>]*>)\s+/, '').split(/&&|\|\||[|;]/)) {
    const words = part.trim().split(/\s+/);
    let k = 0;
    while (k < words.length && (words[k] === 'sudo' || /^\w+=/.test(words[k]))) k++;
    const w = words[k];
    if (w && /^[a-z][\w.-]*$/.test(w) && !SHELL_WORDS.has(w) && w.length > 1) out.push(w);
  }
  return out;
}

/** The things a piece of code names: the packages it imports or installs, the tools its shell lines run, the images
 * it builds on. */
export function namedInCode(code: string, lang?: string): NamedThing[] {
  const found = new Map<string, NamedThing>();
  const add = (name: string | null): void => {
    if (!name || isCodeFragment(name)) return;
    const key = name.toLowerCase();
    if (!found.has(key)) found.set(key, { name, type: 'software' });
  };
  for (const re of JS_IMPORTS) for (const m of code.matchAll(re)) add(packageName(m[1]));
  for (const m of code.matchAll(PY_FROM)) add(packageName(m[1].split('.')[0]));
  for (const m of code.matchAll(PY_IMPORT)) for (const part of m[1].split(',')) add(packageName(part.trim().split(/\s+/)[0].split('.')[0]));
  for (const m of code.matchAll(INSTALL)) for (const p of installed(m[1])) add(p);
  for (const m of code.matchAll(IMAGE)) {
    const image = (m[1] ?? m[2]).split('/').pop()!;
    if (image && image !== 'scratch') add(image);
  }
  const shell = lang !== undefined && SHELL_LANGS.has(lang);
  for (const line of code.split('\n')) {
    if (!shell && !/^\s*\$ \S/.test(line)) continue;
    if (/^\s*#/.test(line)) continue;
    for (const c of commandsOf(line)) add(c);
  }
  return [...found.values()];
}

/** Identifier-shaped tokens: dotted, underscored or dashed names, names with inner capitals, versions. */
const IDENTIFIER = /\bv?\d+(?:\.\d+){1,3}(?:-[\w.]+)?\b|@?[A-Za-z_$][\w$]*(?:[.\-/][A-Za-z_$][\w$]*)*/g;

/** Whether a token has a shape that makes it a good keyword: it joins words (pg_dump, socket.io, redis-cli), has
 * inner capitals or digits (useEffect, OAuth2), is an error code (ECONNREFUSED) or a version (v2.3.1). */
function isShaped(token: string): boolean {
  return /[._\-/@]/.test(token) || /[a-z][A-Z]/.test(token) || /[A-Za-z]\d|\d[A-Za-z]/.test(token) || /^[A-Z]{3,}$/.test(token);
}

/** Variable names nearly every piece of code uses: no keyword worth searching for. */
const COMMON_VARIABLES = new Set('res req err ctx cb df pd np tmp obj val args kwargs cls idx'.split(' '));

/** Most terms one code block gives the facts around it. */
export const MAX_CODE_TERMS = 24;

/** The keyword terms of a piece of code: shaped identifiers first (in order), then its other words of three letters or
 * more; language keywords and the commonest variable names left out; each once (case folded). */
export function codeTerms(code: string, max = MAX_CODE_TERMS): string[] {
  const shaped: string[] = [];
  const plain: string[] = [];
  const seen = new Set<string>();
  for (const m of code.matchAll(IDENTIFIER)) {
    const token = m[0].replace(/[.\-/]+$/, '');
    const key = token.toLowerCase();
    if (token.length < 2 || seen.has(key) || isCodeWord(token) || COMMON_VARIABLES.has(key)) continue;
    seen.add(key);
    if (isShaped(token)) shaped.push(token);
    else if (token.length >= 3) plain.push(token);
  }
  return [...shaped, ...plain].slice(0, max);
}
