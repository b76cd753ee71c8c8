import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { SessionInfo } from '../store/ports.ts';
import type { SessionRef } from '../text/session-expressions.ts';
import { currentSession, resolveSessions } from './sessions.ts';

/** Five sessions on the 1st, 8th, 15th, 22nd and 29th of March 2024, each 18:00 to 19:00. */
const SESSIONS: SessionInfo[] = [1, 8, 15, 22, 29].map((day, i) => {
  const d = String(day).padStart(2, '0');
  return { id: `s${i + 1}`, ordinal: i + 1, start: `2024-03-${d}T18:00:00.000Z`, end: `2024-03-${d}T19:00:00.000Z` };
});
const ords = (refs: SessionRef[], at: string): number[] => resolveSessions(refs, SESSIONS, new Date(at)).map((s) => s.ordinal);
const ago = (from: number, to = from): SessionRef => ({ kind: 'ago', from, to });

test('after every session: the previous is the latest, two ago the one before', () => {
  assert.deepEqual(ords([ago(1)], '2024-04-10T00:00:00Z'), [5]);
  assert.deepEqual(ords([ago(2)], '2024-04-10T00:00:00Z'), [4]);
  assert.deepEqual(ords([ago(1, 3)], '2024-04-10T00:00:00Z'), [3, 4, 5]);
  assert.deepEqual(ords([{ kind: 'earlier' }], '2024-04-10T00:00:00Z'), [1, 2, 3, 4]);
  assert.deepEqual(ords([{ kind: 'current' }], '2024-04-10T00:00:00Z'), [], 'no session in progress');
});

test('on the day of a session (before or after its items), it is the current one and counting starts before it', () => {
  for (const at of ['2024-03-22T18:30:00Z', '2024-03-22T23:00:00Z']) {
    assert.equal(currentSession(SESSIONS, new Date(at))?.id, 's4', at);
    assert.deepEqual(ords([ago(1)], at), [3]);
    assert.deepEqual(ords([ago(2)], at), [2]);
    assert.deepEqual(ords([{ kind: 'current' }], at), [4]);
    assert.deepEqual(ords([{ kind: 'earlier' }], at), [1, 2, 3]);
  }
  assert.equal(currentSession(SESSIONS, new Date('2024-03-22T12:00:00Z')), null, 'not started yet that day');
  assert.deepEqual(ords([ago(1)], '2024-03-22T12:00:00Z'), [3], 'so the previous session is the latest started');
  assert.equal(currentSession(SESSIONS, new Date('2024-03-23T00:00:00Z')), null, 'the next day it is over');
});

test("a query in the past never counts back to sessions after it; ordinals are the bank's whatever the time", () => {
  assert.deepEqual(ords([ago(1)], '2024-03-10T00:00:00Z'), [2]);
  assert.deepEqual(ords([ago(5)], '2024-03-10T00:00:00Z'), [], 'before the first session');
  assert.deepEqual(ords([{ kind: 'ordinal', from: 4, to: 4 }], '2024-03-10T00:00:00Z'), [4]);
  assert.deepEqual(ords([{ kind: 'ordinal', from: 4, to: 9 }], '2024-04-10T00:00:00Z'), [4, 5], 'past the last: what exists');
  assert.deepEqual(
    ords(
      [
        { kind: 'ordinal', from: 1, to: 1 },
        { kind: 'ordinal', from: 3, to: 3 },
      ],
      '2024-04-10T00:00:00Z',
    ),
    [1, 3],
  );
  assert.deepEqual(resolveSessions([ago(1)], [], new Date()), []);
});
