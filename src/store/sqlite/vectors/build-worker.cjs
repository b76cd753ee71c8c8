// Builds a bank's HNSW index file from its vectors in a worker thread (started by vector-index.ts with the hnswlib
// addon's path, the dimensions, the rids and vectors, and a stop flag it reads between points; see hnsw.ts for why it
// is never terminated). A vector the graph already holds exactly is not added again: it is listed as a copy of that
// node (see HnswGraph), and the pairs of copy and node labels are posted back with the result. Plain CommonJS, so it
// runs under any loader.
'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const { HierarchicalNSW } = require(workerData.addon);
const { dim, m, efConstruction, file } = workerData;
const rids = new Float64Array(workerData.rids);
const data = new Float32Array(workerData.data);
const stop = new Int32Array(workerData.stop);
function same(a, b) {
  for (let j = 0; j < b.length; j++) if (a[j] !== b[j]) return false;
  return true;
}
function build() {
  const index = new HierarchicalNSW('ip', dim);
  index.initIndex({ maxElements: Math.ceil(rids.length * 1.25) + 64, m, efConstruction, randomSeed: 100, allowReplaceDeleted: true });
  index.setEf(4);
  const point = new Array(dim);
  const copies = [];
  for (let i = 0; i < rids.length; i++) {
    if ((i & 255) === 0 && Atomics.load(stop, 0) === 1) return { state: 'stopped' };
    for (let j = 0; j < dim; j++) point[j] = data[i * dim + j];
    if (index.getCurrentCount() > 0) {
      const [nearest] = index.searchKnn(point, 1).neighbors; // at ef 4 (set above): see TWIN_EF in hnsw.ts
      if (nearest !== undefined && same(index.getPoint(nearest), point)) {
        copies.push(rids[i], nearest);
        continue;
      }
    }
    index.addPoint(point, rids[i]);
  }
  index.writeIndexSync(file);
  // Ascending by copy, as the graph reads them (copies.ts).
  const order = Array.from({ length: copies.length / 2 }, (_, k) => k).sort((a, b) => copies[2 * a] - copies[2 * b]);
  const pairs = new Float64Array(copies.length);
  order.forEach((k, o) => {
    pairs[2 * o] = copies[2 * k];
    pairs[2 * o + 1] = copies[2 * k + 1];
  });
  return { state: 'built', copies: pairs.buffer };
}
const result = build();
parentPort.postMessage(result, result.copies ? [result.copies] : []);
