// Test support for the HTTP fuzz test: fast-check arbitraries for requests to every operation of the OpenAPI
// document the app serves (its paths, methods, parameters and JSON body schemas), valid and mutated, with hostile
// values: FTS5, SQL and Cypher syntax, NUL and lone surrogates, 1 MB strings, huge numbers, deep nesting.
import fc from 'fast-check';

/** The part of JSON Schema (as @hono/zod-openapi writes it) the generators read. */
export interface JsonSchema {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  anyOf?: JsonSchema[];
  description?: string;
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
}

interface Parameter {
  in: 'path' | 'query' | 'header' | 'cookie';
  name: string;
  required?: boolean;
  schema?: JsonSchema;
}

interface Operation {
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
}

export interface OpenApiDoc {
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, JsonSchema> };
}

/** A value resolved when the request is sent: an id the server handed out earlier (or a made-up one). */
export interface Known {
  known: 'bank' | 'thread' | 'id';
  pick: number;
}

/** One generated request, before its known ids are resolved. */
export interface FuzzRequest {
  method: string;
  /** Path template with `{name}` placeholders, and the value of each. */
  template: string;
  params: Record<string, Known | string>;
  query: Array<[string, string]>;
  headers: Record<string, string>;
  /** A JSON value to serialise, or raw text sent as is. */
  body?: { json: unknown } | { raw: string };
}

const MB = 1_000_000;

/** Strings meant to break something: query syntax of FTS5, SQL and Cypher, control and unpaired code units, sizes. */
export const HOSTILE_STRINGS: readonly string[] = [
  '"NEAR(a b)" OR *',
  'NEAR(',
  'a AND NOT b',
  '"unterminated',
  '*',
  '^start',
  'col:term',
  'a OR OR b',
  '{a b}: c',
  '-',
  '+',
  '""',
  "'; DROP TABLE facts; --",
  '1 OR 1=1',
  "' OR ''='",
  '%',
  '_',
  '\\',
  '\\"',
  'NULL',
  '?',
  ':name',
  '$1',
  'MATCH (n) DETACH DELETE n',
  '}) RETURN 1 //',
  '`backtick`',
  '$param',
  'CALL db.labels()',
  '\u0000',
  'a\u0000b',
  '\ud800',
  '\udfff',
  'a\ud800b',
  '\udc00\ud800',
  '\u202e\u200b\ufeff',
  '\u{1F600}',
  '\r\n',
  '\t',
  '   ',
  '',
  ' ',
  '..',
  '../..',
  '%00',
  '%2e%2e',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  '1e309',
  'NaN',
  '-0',
  'Infinity',
  'true',
  'null',
  '[]',
  '{}',
  '0',
  '-1',
  '2024',
  '2024-02-30T00:00:00Z',
  '+275760-09-13T00:00:00.000Z',
  'Sun, 02 Jun 2024 10:00:00 GMT',
];

/** Numbers at the edges of what JSON and JavaScript can hold. */
export const HOSTILE_NUMBERS: readonly number[] = [
  -1,
  0,
  -0,
  0.5,
  1e308,
  -1e308,
  5e-324,
  2 ** 31,
  2 ** 32,
  2 ** 53 + 2,
  -(2 ** 53) - 2,
  Number.MAX_SAFE_INTEGER,
  1e21,
];

/** Raw JSON texts JSON.stringify cannot write: out-of-range numbers, duplicate and prototype keys. */
const HOSTILE_RAW_BODIES: readonly string[] = [
  '{"limit": 1e999}',
  '{"query": "x", "limit": 1e999}',
  '{"query": "x", "maxTokens": -1e999}',
  '{"items": [{"content": "a"}], "async": 1e999}',
  '{"query": "x", "limit": 123456789012345678901234567890}',
  '{"__proto__": {"query": "x"}}',
  '{"query": "a", "query": "b"}',
  '{"constructor": {"prototype": {"polluted": true}}}',
  '',
  '{',
  '}',
  'null',
  '[]',
  '"text"',
  '1',
  'true',
  '\u0000',
  '\ufeff{}',
  '{"items": [',
  '[[[[[[[[',
  `{"a":${'['.repeat(10)}${']'.repeat(9)}`,
];

const WORDS = [
  'Alice',
  'Bob',
  'Carol',
  'Berlin',
  'Paris',
  'Lisbon',
  'moved',
  'visited',
  'likes',
  'works',
  'at',
  'a',
  'robotics',
  'startup',
  'in',
  'June',
  'last',
  'year',
  'yesterday',
  'on',
  'Monday',
  '2023',
  'her',
  'sister',
  'Anna',
  'the',
  'cat',
  'Miso',
  'and',
  'not',
  'OR',
  'NEAR',
];

const sentence = fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 14 }).map((w) => `${w.join(' ')}.`);

/** A 1 MB string (rare: generated a handful of times per run). */
const huge = fc.constantFrom('x'.repeat(MB), `${'Alice moved to Berlin. '.repeat(MB / 23)}`, '\u0000'.repeat(MB), 'é'.repeat(MB + 1));

export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.constantFrom(...HOSTILE_STRINGS), weight: 12 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 40 }), weight: 4 },
  { arbitrary: fc.string({ unit: fc.constantFrom('\ud800', '\udfff', '\u0000', 'a', ' ', '"', '*', "'"), maxLength: 30 }), weight: 3 },
  { arbitrary: fc.nat({ max: 20_000 }).map((n) => 'y'.repeat(n)), weight: 1 },
  { arbitrary: huge, weight: 1 },
);

/** Arrays or objects nested deeper than any handler expects; written by toJson as text (too deep for JSON.stringify). */
export class DeepNesting {
  constructor(
    readonly depth: number,
    readonly kind: 'array' | 'object',
  ) {}

  text(): string {
    return this.kind === 'array'
      ? '['.repeat(this.depth) + ']'.repeat(this.depth)
      : `${'{"a":'.repeat(this.depth)}1${'}'.repeat(this.depth)}`;
  }
}

const deep = fc
  .tuple(fc.constantFrom(10, 100, 1000, 5000, 100_000), fc.constantFrom<'array' | 'object'>('array', 'object'))
  .map(([d, k]) => new DeepNesting(d, k));

/** Most characters a generated body holds: twice the server's body limit, so an oversized body is still sent (and
 * refused as too large), while thousands of 1 MB strings in one array no longer exceed what a string can hold. */
const MAX_BODY_CHARS = 32 * 1024 * 1024;

/** The parts joined with commas, the parts after the first that would pass MAX_BODY_CHARS left out. */
function joinCapped(parts: Iterable<string>): string {
  const kept: string[] = [];
  let size = 0;
  for (const part of parts) {
    if (kept.length && size + part.length > MAX_BODY_CHARS) break;
    kept.push(part);
    size += part.length + 1;
  }
  return kept.join(',');
}

/** Each value's text, made only when asked for (parts past the cap are never written out). */
function* lazy<T>(values: readonly T[], text: (v: T) => string): Generator<string> {
  for (const v of values) yield text(v);
}

/** JSON text of a generated value (JSON.stringify, but DeepNesting values are written out as their text). */
export function toJson(value: unknown): string {
  if (value instanceof DeepNesting) return value.text();
  if (Array.isArray(value)) return `[${joinCapped(lazy(value, (v) => (v === undefined ? 'null' : toJson(v))))}]`;
  if (value && typeof value === 'object')
    return `{${joinCapped(
      lazy(
        Object.entries(value).filter(([, v]) => v !== undefined),
        ([k, v]) => `${JSON.stringify(k)}:${toJson(v)}`,
      ),
    )}}`;
  return JSON.stringify(value) ?? 'null';
}

export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: hostileString, weight: 8 },
  { arbitrary: fc.constantFrom(...HOSTILE_NUMBERS), weight: 3 },
  { arbitrary: fc.constantFrom<unknown>(null, true, false, [], {}, [null], { '': '' }), weight: 3 },
  { arbitrary: deep, weight: 1 },
  { arbitrary: fc.jsonValue({ maxDepth: 3 }), weight: 2 },
  { arbitrary: fc.array(fc.constantFrom('a', 'b', 'c'), { minLength: 999, maxLength: 1001 }), weight: 1 },
);

/**
 * A mutation of a valid value: at one node (picked among all of the value's nodes), a hostile value, a value just
 * past what the node's type allows (blank or over-long text, an out-of-range number, a 1,000-item array), an unknown
 * key added or a key dropped, or the node wrapped in an array or object. One change per mutation, so the rest of
 * the request stays valid and the change reaches the code behind validation.
 */
interface Mutation {
  node: number;
  kind: number;
  variant: number;
  hostile: unknown;
}

const mutation: fc.Arbitrary<Mutation> = fc.record({
  node: fc.nat(),
  kind: fc.nat({ max: 9 }),
  variant: fc.nat({ max: 99 }),
  hostile: hostileValue,
});

function edgeOf(value: unknown, variant: number): unknown {
  const pick = <T>(options: T[]): T => options[variant % options.length];
  if (typeof value === 'string')
    return pick([
      '',
      '  \n\t',
      `${value}${'x'.repeat(4001)}`,
      `${value}${'z'.repeat(200_001)}`,
      value.toUpperCase(),
      `${value}\u0000`,
      `${value}\ud800`,
    ]);
  if (typeof value === 'number') return pick([-1, 0, 1.5, -1e21, 1e21, 2 ** 53 + 2, value + 1, value - 1, 1e308]);
  if (typeof value === 'boolean') return pick(['true', 1, null]);
  if (Array.isArray(value))
    return pick([
      [],
      Array.from({ length: 1000 }, () => value[0] ?? 'a'),
      Array.from({ length: 10_001 }, () => value[0] ?? 'a'),
      [...value, ...value],
    ]);
  if (value && typeof value === 'object') return pick([{}, [value], { ...value, ...value }]);
  return pick([{}, [], '', 0]);
}

function mutateOnce(value: unknown, m: Mutation): unknown {
  const root: Record<string, unknown> = { v: structuredClone(value) };
  const nodes: Array<[Record<string, unknown> | unknown[], string | number]> = [];
  const walk = (container: Record<string, unknown> | unknown[], key: string | number, depth: number): void => {
    nodes.push([container, key]);
    const v = (container as Record<string | number, unknown>)[key];
    if (depth > 8 || v === null || typeof v !== 'object') return;
    if (Array.isArray(v)) v.slice(0, 8).forEach((_, i) => walk(v, i, depth + 1));
    else for (const k of Object.keys(v)) walk(v as Record<string, unknown>, k, depth + 1);
  };
  walk(root, 'v', 0);
  const [container, key] = nodes[m.node % nodes.length];
  const current = (container as Record<string | number, unknown>)[key];
  let next: unknown;
  if (m.kind < 3) next = m.hostile;
  else if (m.kind < 7) next = edgeOf(current, m.variant);
  else if (current && typeof current === 'object' && !Array.isArray(current)) {
    const copy: Record<string, unknown> = { ...(current as Record<string, unknown>) };
    const keys = Object.keys(copy);
    if (m.kind === 7 && keys.length) delete copy[keys[m.variant % keys.length]];
    else
      Object.defineProperty(copy, ['unknownKey', 'sorceFacts', '__proto__', '', 'constructor'][m.variant % 5], {
        value: m.hostile,
        enumerable: true,
        configurable: true,
        writable: true,
      });
    next = copy;
  } else next = m.kind === 7 ? [current] : { value: current };
  (container as Record<string | number, unknown>)[key] = next;
  return root.v;
}

/** The hostile values a sweep rotates through. */
const SWEEP_HOSTILE: readonly unknown[] = [
  ...HOSTILE_STRINGS,
  ...HOSTILE_NUMBERS,
  null,
  [],
  {},
  [null],
  new DeepNesting(100_000, 'array'),
  new DeepNesting(5000, 'object'),
  'Alice moved to Berlin. '.repeat(40_000),
  'x'.repeat(1_000_001),
];

const EDGE_VARIANTS = 9;
const edgeCount = (value: unknown): number =>
  new Set(Array.from({ length: EDGE_VARIANTS }, (_, i) => JSON.stringify(edgeOf(value, i)).slice(0, 64))).size;

function countNodes(value: unknown, depth = 0): number {
  if (depth > 8 || value === null || typeof value !== 'object') return 1;
  const children = Array.isArray(value) ? value.slice(0, 8) : Object.values(value);
  return 1 + children.reduce<number>((n, c) => n + countNodes(c, depth + 1), 0);
}

/** The node mutateOnce would pick for this index (same walk order). */
function nodeAt(value: unknown, index: number): unknown {
  const nodes: unknown[] = [];
  const walk = (v: unknown, depth: number): void => {
    nodes.push(v);
    if (depth > 8 || v === null || typeof v !== 'object') return;
    if (Array.isArray(v)) v.slice(0, 8).forEach((c) => walk(c, depth + 1));
    else for (const c of Object.values(v)) walk(c, depth + 1);
  };
  walk(value, 0);
  return nodes[index % nodes.length];
}

type Target = 'body' | 'path' | 'query' | 'method' | 'content-type';

export class SchemaArbitraries {
  constructor(private readonly doc: OpenApiDoc) {}

  private resolve(schema: JsonSchema): JsonSchema {
    let s = schema;
    for (let i = 0; s.$ref && i < 20; i++) s = this.doc.components?.schemas?.[s.$ref.replace('#/components/schemas/', '')] ?? {};
    return s;
  }

  /**
   * Valid values of a schema (arrays short, text short, sentences the extractor can read); `full` puts every
   * optional property in and at least one item in every array, so a sweep reaches every field.
   */
  value(schema: JsonSchema, depth = 0, full = false): fc.Arbitrary<unknown> {
    const s = this.resolve(schema);
    const alternatives = s.anyOf ?? s.oneOf;
    if (alternatives?.length) return fc.oneof(...alternatives.map((a) => this.value(a, depth + 1, full)));
    if (s.allOf?.length) return this.value(s.allOf[0], depth + 1, full);
    if (s.const !== undefined) return fc.constant(s.const);
    if (s.enum?.length) return fc.constantFrom(...s.enum);
    const types = Array.isArray(s.type) ? s.type : s.type ? [s.type] : [];
    if (types.length > 1)
      return fc.oneof(...types.filter((type) => !full || type !== 'null').map((type) => this.value({ ...s, type }, depth, full)));
    switch (types[0]) {
      case 'null':
        return fc.constant(null);
      case 'boolean':
        return fc.boolean();
      case 'integer':
        return fc.integer({ min: Math.max(s.minimum ?? -1000, -1e9), max: Math.min(s.maximum ?? 1000, 1e9) });
      case 'number':
        return fc.double({ min: s.minimum ?? -1000, max: s.maximum ?? 1000, noNaN: true, noDefaultInfinity: true });
      case 'string':
        return this.string(s);
      case 'array': {
        const max = Math.min(s.maxItems ?? 4, 4);
        const min = Math.min(Math.max(s.minItems ?? 0, full ? 1 : 0), max);
        return depth > 6
          ? fc.constant([])
          : fc.array(this.value(s.items ?? {}, depth + 1, full), { minLength: min, maxLength: full ? min : max });
      }
      case 'object':
        return this.object(s, depth, full);
      default:
        return depth > 6 ? fc.constant(null) : fc.jsonValue({ maxDepth: 2 });
    }
  }

  private string(s: JsonSchema): fc.Arbitrary<string> {
    if (s.format === 'date-time')
      return fc.oneof(
        fc.date({ min: new Date('1900-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString()),
        fc.constantFrom('2024-06-01', '2024-06-01T12:00:00+02:00', '2023-12-31T23:59:59Z'),
      );
    if (s.pattern) {
      // fast-check generates from plain patterns only (no lookaround): others get hostile strings checked by the server.
      try {
        return fc
          .stringMatching(new RegExp(s.pattern))
          .filter((v) => v.length >= (s.minLength ?? 0) && v.length <= (s.maxLength ?? Infinity));
      } catch {
        return fc.oneof(fc.stringMatching(/^[A-Za-z0-9_.-]{1,40}$/), fc.string({ maxLength: 40 }));
      }
    }
    const max = Math.min(s.maxLength ?? 60, 200);
    const min = Math.min(s.minLength ?? 0, max);
    return fc
      .oneof({ arbitrary: sentence, weight: 3 }, { arbitrary: fc.string({ maxLength: max }), weight: 1 })
      .map((v) => (v.length > max ? v.slice(0, max) : v.padEnd(min, 'x')));
  }

  private object(s: JsonSchema, depth: number, full = false): fc.Arbitrary<unknown> {
    const props = s.properties ?? {};
    const model: Record<string, fc.Arbitrary<unknown>> = {};
    for (const [k, v] of Object.entries(props)) model[k] = this.value(v, depth + 1, full);
    const arb = full ? fc.record(model) : fc.record(model, { requiredKeys: (s.required ?? []).filter((k) => k in props) });
    if (!s.additionalProperties || typeof s.additionalProperties !== 'object') return arb;
    // Keys of an open object: the names its description lists (its known settings) or any text.
    const named = [...new Set((s.description ?? '').match(/\b[a-z][A-Za-z]{2,}\b/g) ?? [])];
    const key = named.length
      ? fc.oneof({ arbitrary: fc.constantFrom(...named), weight: 3 }, { arbitrary: fc.string({ maxLength: 12 }), weight: 1 })
      : fc.string({ maxLength: 12 });
    const extra = fc.dictionary(key, this.value(s.additionalProperties, depth + 1), { minKeys: full ? 1 : 0, maxKeys: 4 });
    return fc.tuple(arb, extra).map(([a, b]) => ({ ...b, ...a }));
  }

  /** A valid value with one or two mutations. */
  private mutated(schema: JsonSchema): fc.Arbitrary<unknown> {
    return fc.tuple(this.value(schema), fc.array(mutation, { minLength: 1, maxLength: 2 })).map(([v, ms]) => ms.reduce(mutateOnce, v));
  }

  /**
   * Requests for one operation of the document: half valid, half with one part mutated (the body, a path or query
   * parameter, the method or the content type) and the rest left valid.
   */
  request(path: string, method: string, op: Operation): fc.Arbitrary<FuzzRequest> {
    const params = (op.parameters ?? []).filter((p) => p.in === 'path');
    const queries = (op.parameters ?? []).filter((p) => p.in === 'query');
    const bodySchema = op.requestBody?.content?.['application/json']?.schema;
    const wantsBody = bodySchema !== undefined || ['post', 'put', 'patch'].includes(method);
    const target = fc.oneof(
      { arbitrary: fc.constant<Target | null>(null), weight: 5 },
      {
        arbitrary: fc.constantFrom<Target>(
          ...(wantsBody ? (['body', 'body', 'body'] as const) : []),
          ...(params.length ? (['path'] as const) : []),
          'query',
          'method',
          'content-type',
        ),
        weight: 5,
      },
    );
    // Built once per target: building arbitraries inside chain for every sample costs more than generating.
    const built = new Map<Target | null, fc.Arbitrary<FuzzRequest>>();
    return target.chain((t) => {
      const cached = built.get(t);
      if (cached) return cached;
      const pathValues = fc.record(Object.fromEntries(params.map((p) => [p.name, pathValue(p.name, t === 'path')])));
      const validQuery = fc
        .tuple(
          ...queries.map((q) =>
            fc.option(
              this.value(q.schema ?? {}).map((v): [string, string] => [q.name, v === null || v === undefined ? '' : String(v)]),
              { nil: null, freq: 2 },
            ),
          ),
        )
        .map((pairs) => pairs.filter((p): p is [string, string] => p !== null));
      const query =
        t === 'query'
          ? fc
              .tuple(
                validQuery,
                fc.array(
                  fc.tuple(
                    fc.constantFrom(...queries.map((q) => q.name), 'unknown', '', '__proto__'),
                    fc.oneof(hostileString, fc.constantFrom('-1', '0', '1e999', '1.5', '99999999999')),
                  ),
                  { minLength: 1, maxLength: 2 },
                ),
              )
              .map(([a, b]) => [...a, ...b])
          : validQuery;
      const body: fc.Arbitrary<FuzzRequest['body']> = !wantsBody
        ? fc.constant(undefined)
        : !bodySchema
          ? fc.oneof(
              fc.constant(undefined),
              hostileValue.map((json) => ({ json })),
              fc.record({ factIds: fc.array(fc.string(), { maxLength: 3 }) }).map((json) => ({ json })),
            )
          : t === 'body'
            ? fc.oneof(
                { arbitrary: this.mutated(bodySchema).map((json) => ({ json })), weight: 8 },
                { arbitrary: fc.constantFrom(...HOSTILE_RAW_BODIES).map((raw) => ({ raw })), weight: 1 },
                { arbitrary: hostileValue.map((json) => ({ json })), weight: 1 },
              )
            : this.value(bodySchema).map((json) => ({ json }));
      const contentType =
        t === 'content-type'
          ? fc.constantFrom(
              'text/plain',
              'application/x-www-form-urlencoded',
              'application/json; charset=utf-16',
              'application/jsonx',
              '',
              'multipart/form-data; boundary=x',
              'APPLICATION/JSON',
            )
          : fc.constant('application/json');
      const verb =
        t === 'method' ? fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS') : fc.constant(method.toUpperCase());
      const arb = fc.record({ params: pathValues, query, body, contentType, method: verb }).map((r) => ({
        method: r.method,
        template: path,
        params: r.params,
        query: r.query,
        headers: r.contentType ? { 'content-type': r.contentType } : ({} as Record<string, string>),
        body: r.body,
      }));
      built.set(t, arb);
      return arb;
    });
  }

  /**
   * A systematic sweep of one operation, beside the random requests: from one full valid request, every node of
   * the body given every edge of its type, deep nesting and two hostile values (rotating through the list, so each
   * operation meets most of them), every path and query parameter given hostile values, and a method the path does
   * not take.
   */
  sweep(path: string, method: string, op: Operation, seed: number): FuzzRequest[] {
    const params = (op.parameters ?? []).filter((p) => p.in === 'path');
    const queries = (op.parameters ?? []).filter((p) => p.in === 'query');
    const bodySchema = op.requestBody?.content?.['application/json']?.schema;
    const base: FuzzRequest = {
      method: method.toUpperCase(),
      template: path,
      params: Object.fromEntries(
        params.map((p) => [p.name, { known: p.name === 'bank' ? 'bank' : p.name === 'thread' ? 'thread' : 'id', pick: 0 } as Known]),
      ),
      query: [],
      headers: { 'content-type': 'application/json' },
      body: bodySchema ? { json: fc.sample(this.value(bodySchema, 0, true), { seed, numRuns: 1 })[0] } : undefined,
    };
    const out: FuzzRequest[] = [base];
    const hostile = SWEEP_HOSTILE;
    let rotation = seed;
    if (base.body && 'json' in base.body) {
      const json = base.body.json;
      const count = countNodes(json);
      for (let node = 0; node < count; node++) {
        const current = nodeAt(json, node);
        const variants: Mutation[] = [...Array(edgeCount(current)).keys()].map((variant) => ({ node, kind: 3, variant, hostile: null }));
        for (let h = 0; h < 2; h++) variants.push({ node, kind: 0, variant: 0, hostile: hostile[rotation++ % hostile.length] });
        variants.push({ node, kind: 0, variant: 0, hostile: new DeepNesting(100_000, node % 2 ? 'array' : 'object') });
        variants.push({ node, kind: 7, variant: node, hostile: null }, { node, kind: 8, variant: node, hostile: 'x' });
        for (const m of variants) out.push({ ...base, body: { json: mutateOnce(json, m) } });
      }
      for (const raw of HOSTILE_RAW_BODIES) out.push({ ...base, body: { raw } });
    }
    for (const p of params)
      for (const v of [
        '%',
        '%ED%A0%80',
        '\u0000',
        'x'.repeat(300),
        '..',
        "' OR 1=1 --",
        '"NEAR(a b)" OR *',
        '\ud800',
        ' ',
        'MATCH (n) RETURN n',
      ])
        out.push({ ...base, params: { ...base.params, [p.name]: v } });
    for (const q of queries)
      for (const v of ['-1', '0', '1e999', '1.5', '99999999999999999999', '', 'true', '2024', hostile[rotation++ % hostile.length]])
        out.push({ ...base, query: [[q.name, typeof v === 'string' ? v : (JSON.stringify(v) ?? '')]] });
    out.push({ ...base, query: [['unknownParam', '1']] });
    out.push({ ...base, method: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].find((m) => m !== base.method && m !== 'GET') ?? 'PUT' });
    if (base.body) out.push({ ...base, headers: { 'content-type': 'text/plain' } }, { ...base, headers: {} });
    return out;
  }
}

/** A path parameter: mostly ids the server knows (so requests reach deep), sometimes made-up or hostile ones. */
function pathValue(name: string, mutate: boolean): fc.Arbitrary<Known | string> {
  const known: Known['known'] = name === 'bank' ? 'bank' : name === 'thread' ? 'thread' : 'id';
  const pick = fc.nat({ max: 1000 }).map((n): Known => ({ known, pick: n }));
  return mutate
    ? fc.oneof(
        { arbitrary: pick, weight: 3 },
        { arbitrary: hostileString, weight: 2 },
        { arbitrary: fc.constantFrom('%', '%zz', '%ED%A0%80', '%FF', '%00', '%2F', 'a%2Fb'), weight: 1 },
      )
    : fc.oneof({ arbitrary: pick, weight: 9 }, { arbitrary: fc.stringMatching(/^[a-z0-9_-]{1,20}$/), weight: 1 });
}

/** Percent-encodes a path segment; lone surrogates, which encodeURIComponent refuses, become their raw UTF-8 bytes. */
export function encodeSegment(value: string): string {
  if (/^%/.test(value) && value.length <= 10) return value; // deliberately malformed escapes, sent as they are
  let out = '';
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdfff) {
      const next = value.charCodeAt(i + 1);
      if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        out += encodeURIComponent(value[i] + value[i + 1]);
        i++;
      } else
        out +=
          `%${(0xe0 | (c >> 12)).toString(16)}%${(0x80 | ((c >> 6) & 0x3f)).toString(16)}%${(0x80 | (c & 0x3f)).toString(16)}`.toUpperCase();
    } else out += encodeURIComponent(value[i]);
  }
  return out;
}
