// The strict ISO 8601 reader every time field of the API goes through: what it accepts, the one form it
// returns, and what it refuses (dates Date.parse would take or roll over).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isoInstant } from './time.ts';

test('ISO 8601 dates and date-times come back in one canonical UTC form', () => {
  const cases: Array<[string, string]> = [
    ['2024-06-01T12:00:00Z', '2024-06-01T12:00:00.000Z'],
    ['2024-06-01t12:00:00z', '2024-06-01T12:00:00.000Z'],
    ['2024-06-01 12:00:00Z', '2024-06-01T12:00:00.000Z'],
    ['2024-06-01T12:00Z', '2024-06-01T12:00:00.000Z'],
    ['2024-06-01T12:00:00', '2024-06-01T12:00:00.000Z'],
    ['2024-06-01T14:30:00+02:30', '2024-06-01T12:00:00.000Z'],
    ['2024-06-01T10:00:00-0200', '2024-06-01T12:00:00.000Z'],
    ['2024-06-01T12:00:00.5Z', '2024-06-01T12:00:00.500Z'],
    ['2024-06-01T12:00:00,123456789Z', '2024-06-01T12:00:00.123Z'],
    ['2024-06-01', '2024-06-01T00:00:00.000Z'],
    ['2024-02-29', '2024-02-29T00:00:00.000Z'],
    ['2000-02-29', '2000-02-29T00:00:00.000Z'],
    ['0001-01-01', '0001-01-01T00:00:00.000Z'],
    ['9999-12-31T23:59:59.999Z', '9999-12-31T23:59:59.999Z'],
  ];
  for (const [input, canonical] of cases) assert.equal(isoInstant(input), canonical, input);
});

test('anything else is refused, including dates Date.parse would accept or roll over', () => {
  for (const input of [
    '0',
    '-1',
    '2024',
    '2024-06',
    '20240601',
    '2024-02-30T00:00:00Z',
    '2023-02-29',
    '1900-02-29',
    '2024-13-01',
    '2024-00-10',
    '2024-06-31',
    '2024-06-01T24:00:00Z',
    '2024-06-01T12:60:00Z',
    '2024-06-01T12:00:61Z',
    '2024-06-01T12:00:00+24:00',
    'Sun, 02 Jun 2024 10:00:00 GMT',
    'June 2, 2024',
    'yesterday',
    '',
    ' 2024-06-01',
    '2024-06-01\n',
    '+002024-06-01',
    '0000-01-01T00:00:00+01:00',
    '9999-12-31T23:59:59-01:00',
    '2024-06-01T12:00:00ZZ',
    '2024-06-01T12',
  ])
    assert.equal(isoInstant(input), null, JSON.stringify(input));
});
