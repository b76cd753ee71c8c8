// Several queries ranked against a set of vectors at once: one matrix product (onnxruntime's GEMM, vectorised and cache
// blocked) followed by a top-k per query, instead of one exact scan per query. A retain looks for the nearest stored
// and recent facts of every fact of an item, and one scan per fact was the largest share of a retain's CPU once a bank
// held some thousands of facts (in a scratch measurement here, usearch about 34 ns per vector and query, the product
// about 4-6 ns). onnxruntime-node is already installed for @huggingface/transformers; the two-node graph (Gemm, TopK)
// is written below in protobuf's wire format, a few lines that a schema library would not shorten. Where the runtime
// cannot be loaded (another platform), callers get null and scan query by query as before. Every thread may rank
// (the consolidation thread too): the runtime must be one that is safe across threads (src/embed's
// transformers-threads test; onnxruntime-node 1.21 was not and aborted the process).
import { createRequire } from 'node:module';

type OrtTensor = { data: unknown; dims: readonly number[] };
interface Ort {
  Tensor: new (type: string, data: Float32Array | BigInt64Array, dims: number[]) => OrtTensor;
  InferenceSession: {
    create(
      model: Uint8Array,
      options: Record<string, unknown>,
    ): Promise<{ run(feeds: Record<string, OrtTensor>): Promise<Record<string, OrtTensor>> }>;
  };
}
type Session = Awaited<ReturnType<Ort['InferenceSession']['create']>>;

/** How far below a kept score a float32 product must lie to be sure it ranks below it (rounding of a 100-1024-d product
 * in float32 against the same product summed in double). */
export const PRODUCT_SLACK = 1e-4;

/** Each query's `c` best rows of the data (row indexes, best first), their products, and the last product. */
export interface BatchRanking {
  rows: BigInt64Array;
  values: Float32Array;
  last: number;
}

// protobuf wire format: a field is its number and wire type, then a varint (type 0) or a length and bytes (type 2).
const varint = (n: number): number[] => {
  const out: number[] = [];
  let v = n;
  do {
    out.push((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
    v = Math.floor(v / 128);
  } while (v > 0);
  return out;
};
const int = (field: number, n: number): number[] => [...varint(field << 3), ...varint(n)];
const bytes = (field: number, body: number[]): number[] => [...varint((field << 3) | 2), ...varint(body.length), ...body];
const str = (field: number, s: string): number[] => bytes(field, [...Buffer.from(s)]);

const FLOAT = 1;
const INT64 = 7;
/** ValueInfoProto: a name and a tensor type (element type, then each dimension as a size or a symbolic name). */
const valueInfo = (field: number, name: string, elem: number, dims: Array<number | string>): number[] =>
  bytes(field, [
    ...str(1, name),
    ...bytes(
      2,
      bytes(1, [
        ...int(1, elem),
        ...bytes(
          2,
          dims.flatMap((d) => bytes(1, typeof d === 'number' ? int(1, d) : str(2, d))),
        ),
      ]),
    ),
  ]);
/** NodeProto with integer attributes (AttributeProto type 2: INT). */
const node = (op: string, inputs: string[], outputs: string[], attrs: Record<string, number>): number[] =>
  bytes(1, [
    ...inputs.flatMap((i) => str(1, i)),
    ...outputs.flatMap((o) => str(2, o)),
    ...str(4, op),
    ...Object.entries(attrs).flatMap(([name, v]) => bytes(5, [...str(1, name), ...int(20, 2), ...int(3, v)])),
  ]);

/** scores = queries · dataᵀ, then the k best of each row: inputs q [nq, dim], d [n, dim], k [1]. */
export function scanModel(dim: number): Uint8Array {
  const graph = [
    ...node('Gemm', ['q', 'd'], ['s'], { transB: 1 }),
    ...node('TopK', ['s', 'k'], ['values', 'indices'], { axis: 1, largest: 1, sorted: 1 }),
    ...str(2, 'batch_scan'),
    ...valueInfo(11, 'q', FLOAT, ['nq', dim]),
    ...valueInfo(11, 'd', FLOAT, ['n', dim]),
    ...valueInfo(11, 'k', INT64, [1]),
    ...valueInfo(12, 'values', FLOAT, ['nq', 'c']),
    ...valueInfo(12, 'indices', INT64, ['nq', 'c']),
  ];
  // ModelProto: IR version 8, the default operator set at version 13, the graph.
  return Uint8Array.from([...int(1, 8), ...bytes(8, int(2, 13)), ...bytes(7, graph)]);
}

/** Most scores one product computes (queries × rows, 16 MB): more queries are ranked in several products, so a retain
 * of one huge item into a large bank holds a bounded score matrix. */
const MAX_SCORES = 1 << 22;

let ort: Promise<Ort | null> | null = null;
const sessions = new Map<number, Promise<Session | null>>();

function runtime(): Promise<Ort | null> {
  ort ??= (async () => {
    try {
      return createRequire(import.meta.url)('onnxruntime-node') as Ort;
    } catch {
      return null;
    }
  })();
  return ort;
}

function session(dim: number): Promise<Session | null> {
  let s = sessions.get(dim);
  if (!s) {
    s = runtime().then((o) =>
      o
        ? o.InferenceSession.create(scanModel(dim), {
            intraOpNumThreads: 1,
            interOpNumThreads: 1,
            executionMode: 'sequential',
            graphOptimizationLevel: 'all',
          }).catch(() => null)
        : null,
    );
    sessions.set(dim, s);
  }
  return s;
}

/**
 * The `c` rows of data (n × dim, row-major) with the largest inner product with each query, best first, or null
 * where the runtime is unavailable. The data must not change until the promise settles (callers check).
 */
export async function batchTop(
  data: Float32Array,
  n: number,
  dim: number,
  queries: Float32Array[],
  c: number,
): Promise<BatchRanking[] | null> {
  if (queries.length === 0 || n === 0 || c < 1 || c > n) return null;
  const [o, s] = await Promise.all([runtime(), session(dim)]);
  if (!s || !o) return null;
  const per = Math.max(1, Math.floor(MAX_SCORES / n));
  const out: BatchRanking[] = [];
  try {
    for (let from = 0; from < queries.length; from += per) {
      const part = queries.slice(from, from + per);
      const q = new Float32Array(part.length * dim);
      part.forEach((v, i) => q.set(v, i * dim));
      const ranked = await s.run({
        q: new o.Tensor('float32', q, [part.length, dim]),
        d: new o.Tensor('float32', data.subarray(0, n * dim), [n, dim]),
        k: new o.Tensor('int64', BigInt64Array.of(BigInt(c)), [1]),
      });
      const values = ranked.values.data as Float32Array;
      const indices = ranked.indices.data as BigInt64Array;
      for (let i = 0; i < part.length; i++)
        out.push({
          rows: indices.subarray(i * c, (i + 1) * c),
          values: values.subarray(i * c, (i + 1) * c),
          last: values[(i + 1) * c - 1],
        });
    }
    return out;
  } catch {
    return null;
  }
}
