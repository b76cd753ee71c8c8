// The body of a flat snapshot file (flat-file.ts: rids, record times, kinds, vectors) read from an open descriptor
// into new arrays with room to grow, checked against the header's checksum as it is read; and that check itself (the
// graph snapshot's meta file names one of the same kinds: snapshot.ts).
// Plain CommonJS, so a worker thread runs it under any loader: the vector index reads a large snapshot in one (its
// first searches meanwhile scan the file, cold.ts) and a small one on its own thread (flat-file.ts requires this).
'use strict';
const { createHash } = require('node:crypto');
const { readSync } = require('node:fs');
const { isMainThread, parentPort, workerData } = require('node:worker_threads');
const { crc32 } = require('node:zlib');

/** Bytes read per call, and checked at once while they are in the cache. */
const READ_CHUNK = 8 << 20;

/** Fills bytes from the file at position, or throws when the file ends first. */
function readFully(fd, bytes, position) {
  for (let done = 0; done < bytes.length; ) {
    const n = readSync(fd, bytes, done, bytes.length - done, position + done);
    if (n === 0) throw new Error('the flat snapshot ended early');
    done += n;
  }
}

/** The check a header of the format names: format 2 a CRC-32 (8 hex digits), format 1 a SHA-256 (hex, five times
 * slower). Fed the body's bytes in order, then asked for the digest. */
function bodyCheck(format) {
  if (format === 1) {
    const hash = createHash('sha256');
    return { update: (bytes) => void hash.update(bytes), digest: () => hash.digest('hex') };
  }
  let crc = 0;
  return { update: (bytes) => void (crc = crc32(bytes, crc)), digest: () => crc.toString(16).padStart(8, '0') };
}

/** The body as four ArrayBuffers (rids, times, kinds, vectors) of `capacity` entries, or null when its checksum
 * differs. layout: { start, size, dim, capacity, format, checksum }. */
function readBody(fd, layout) {
  const { start, size: n, dim, capacity, format, checksum } = layout;
  const kindBytes = Math.ceil(n / 8) * 8;
  const rids = new ArrayBuffer(capacity * 8);
  const times = new ArrayBuffer(capacity * 8);
  const kinds = new ArrayBuffer(Math.max(capacity, kindBytes));
  const data = new ArrayBuffer(capacity * dim * 4);
  const check = bodyCheck(format);
  let at = start;
  const sections = [
    new Uint8Array(rids, 0, n * 8),
    new Uint8Array(times, 0, n * 8),
    new Uint8Array(kinds, 0, kindBytes),
    new Uint8Array(data, 0, n * dim * 4),
  ];
  for (const section of sections) {
    for (let o = 0; o < section.length; o += READ_CHUNK) {
      const part = section.subarray(o, o + READ_CHUNK);
      readFully(fd, part, at);
      check.update(part);
      at += part.length;
    }
  }
  if (check.digest() !== checksum) return null;
  new Uint8Array(kinds).fill(0, n, kindBytes);
  return { rids, times, kinds, data };
}

module.exports = { READ_CHUNK, readFully, bodyCheck, readBody };

// As a worker: read the body named by workerData.flatBody and hand its arrays over (moved, not copied).
if (!isMainThread && workerData && workerData.flatBody) {
  const { fd, layout } = workerData.flatBody;
  let body = null;
  try {
    body = readBody(fd, layout);
  } catch {
    body = null; // the file ended early or could not be read: as good as damaged
  }
  parentPort.postMessage(body, body ? [body.rids, body.times, body.kinds, body.data] : []);
}
