// Builds a bank's HNSW index file from its vectors in a worker thread (started by vector-index.ts with the hnswlib
// addon's path, the dimensions, the rids and vectors, and a stop flag it reads between points; see hnsw.ts for why it
// is never terminated). Plain CommonJS, so it runs under any loader.
'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const { HierarchicalNSW } = require(workerData.addon);
const { dim, m, efConstruction, file } = workerData;
const rids = new Float64Array(workerData.rids);
const data = new Float32Array(workerData.data);
const stop = new Int32Array(workerData.stop);
function build() {
  const index = new HierarchicalNSW('ip', dim);
  index.initIndex({ maxElements: Math.ceil(rids.length * 1.25) + 64, m, efConstruction, randomSeed: 100, allowReplaceDeleted: true });
  const point = new Array(dim);
  for (let i = 0; i < rids.length; i++) {
    if ((i & 255) === 0 && Atomics.load(stop, 0) === 1) return 'stopped';
    for (let j = 0; j < dim; j++) point[j] = data[i * dim + j];
    index.addPoint(point, rids[i]);
  }
  index.writeIndexSync(file);
  return 'built';
}
parentPort.postMessage(build());
