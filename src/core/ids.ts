// Identifiers: time-sortable random ids with a short type prefix, content hashes, and the rule for bank ids.
import { createHash, randomBytes } from 'node:crypto';
import { CairnError, shortened } from './errors.ts';

let lastMs = 0;
let counter = 0;
// Random tails are cut from a pool refilled 4 KB at a time: a retain makes ids by the thousand, and one call to the
// system's random source per id cost about 2% of its CPU time.
const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let poolAt = 0;

function randomHex(bytes: number): string {
  if (poolAt + bytes > pool.length) {
    pool = randomBytes(POOL_BYTES);
    poolAt = 0;
  }
  poolAt += bytes;
  return pool.toString('hex', poolAt - bytes, poolAt);
}

/** A new id such as `fct_0193b2c4d5e6_9f8a7b6c5d4e`: prefix, hex milliseconds plus a counter, random tail. */
export function newId(prefix: string): string {
  const now = Date.now();
  counter = now === lastMs ? counter + 1 : 0;
  lastMs = now;
  const time = now.toString(16).padStart(12, '0') + counter.toString(16).padStart(3, '0');
  return `${prefix}_${time}${randomHex(6)}`;
}

/** Stable sha256 hex digest of the given parts. */
export function contentHash(...parts: Array<string | null | undefined>): string {
  const h = createHash('sha256');
  for (const p of parts) {
    h.update(p ?? '\u0000');
    h.update('\u0001');
  }
  return h.digest('hex');
}

/** A deterministic id derived from content, used where re-applying a write must be idempotent. */
export function derivedId(prefix: string, ...parts: string[]): string {
  return `${prefix}_${contentHash(...parts).slice(0, 24)}`;
}

/** The one rule for bank ids, everywhere a bank id enters Cairn (HTTP API, CLI, import, the stores): ids that
 * travel safely as one URL path segment and one shell word. Only dots (`.`, `..`) would be path navigation. */
export const BANK_ID_RULE = 'a bank id is 1 to 128 letters, digits, _ . - (ASCII), and not only dots';
export const BANK_ID_PATTERN = /^(?!\.+$)[A-Za-z0-9_.-]{1,128}$/;

export const isBankId = (id: string): boolean => BANK_ID_PATTERN.test(id);

/** An id of only dots: URL parsers read it as a path step (even percent-encoded), so no route can name it. */
export const ONLY_DOTS = /^\.+$/;
/** Half of a UTF-16 surrogate pair without its other half: not text, and it cannot be put in a URL. */
export const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

const LONE_SURROGATES = new RegExp(LONE_SURROGATE.source, 'g');

/**
 * The text with each lone surrogate replaced by U+FFFD, one code unit for one: SQLite stores text as UTF-8, where
 * a lone surrogate has no encoding and came back as three replacement characters, so offsets into the stored text
 * (a fact's span in its message) no longer matched. A truncated emoji in a pasted message is common enough that
 * refusing the whole message would be worse than marking the broken character.
 */
export function wellFormed(text: string): string {
  return text.replace(LONE_SURROGATES, '\uFFFD');
}

/** A JSON value (tool-call arguments) with wellFormed applied to every string in it, keys included. */
export function wellFormedValue(value: unknown): unknown {
  if (typeof value === 'string') return wellFormed(value);
  if (Array.isArray(value)) return value.map(wellFormedValue);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [wellFormed(k), wellFormedValue(v)]));
}

/** Throws a 400 naming the rule when `id` breaks it. */
export function checkBankId(id: string): string {
  if (!isBankId(id)) throw new CairnError('bad_request', `bank id '${shortened(id, 140)}' is not allowed: ${BANK_ID_RULE}`);
  return id;
}

/** JSON with object keys sorted at every level, so equal values give equal text whatever their key order. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

/** A digest of a request payload (idempotency keys remember it to tell a retry from a reuse with other content). */
export const payloadHash = (value: unknown): string => contentHash(canonicalJson(value));
