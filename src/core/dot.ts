// Vector similarity. The inner product, the similarity of normalized embeddings, unrolled four ways (which V8 runs
// about twice as fast as a plain loop) for every scan that compares a vector with many; and the cosine, for vectors
// that may not be normalized (recall's MMR and standing statements, the offline consolidator).

/** The inner product of data[offset, offset + dim) and q[0, dim). */
export function dot(data: Float32Array, offset: number, q: Float32Array, dim: number): number {
  let a = 0,
    b = 0,
    c = 0,
    d = 0,
    i = 0;
  for (; i + 3 < dim; i += 4) {
    a += data[offset + i] * q[i];
    b += data[offset + i + 1] * q[i + 1];
    c += data[offset + i + 2] * q[i + 2];
    d += data[offset + i + 3] * q[i + 3];
  }
  for (; i < dim; i++) a += data[offset + i] * q[i];
  return a + b + c + d;
}

/** The cosine of two vectors (over their common length; 0 when either is zero). */
export function cosine(a: Float32Array, b: Float32Array): number {
  const n = Math.min(a.length, b.length);
  let ab = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < n; i++) {
    ab += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return na === 0 || nb === 0 ? 0 : ab / Math.sqrt(na * nb);
}
