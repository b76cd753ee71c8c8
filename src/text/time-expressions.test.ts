import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as chrono from 'chrono-node';
import fc from 'fast-check';
import { MAY_TELL_TIME, parseTimeExpressions } from './time-expressions.ts';

const ref = new Date('2023-05-08T13:56:00Z');

test('"last June" said in May 2023 is the whole of June 2022', () => {
  const [r] = parseTimeExpressions('What did Alice do last June?', ref);
  assert.equal(r.start, '2022-06-01T00:00:00.000Z');
  assert.equal(r.end, '2022-06-30T23:59:59.999Z');
});

test('"yesterday" is the day before the reference', () => {
  const [r] = parseTimeExpressions('I went to the support group yesterday.', ref);
  assert.equal(r.start, '2023-05-07T00:00:00.000Z');
  assert.equal(r.end, '2023-05-07T23:59:59.999Z');
});

test('"in 2022" is the whole year and "two weeks ago" a week around that day', () => {
  const [y] = parseTimeExpressions('We met in 2022.', ref);
  assert.equal(y.start, '2022-01-01T00:00:00.000Z');
  const [w] = parseTimeExpressions('two weeks ago we talked', ref);
  assert.ok(Date.parse(w.start) < Date.parse('2023-04-24T00:00:00Z') && Date.parse(w.end) > Date.parse('2023-04-25T00:00:00Z'));
});

test('text without a time expression gives no range', () => {
  assert.deepEqual(parseTimeExpressions('Alice likes hiking with her dog.', ref), []);
});

// Said on Sunday 10 March 2024. Plans resolve to the next occurrence, the past tense to the latest one before,
// anything else to the nearest; each row's expected start (a day, or a month for a month alone).
const sunday = new Date('2024-03-10T09:00:00Z');
const BY_TENSE: Array<[sentence: string, expected: string[]]> = [
  ['The wedding is planned for September 14th.', ['2024-09-14']],
  ["On Sept 14th we'll have the party.", ['2024-09-14']],
  ['We got married on September 14th.', ['2023-09-14']],
  ['The concert was on March 12th.', ['2023-03-12']],
  ["I'm going to visit Mum on March 8.", ['2025-03-08']],
  ['My exam is scheduled for February 20.', ['2025-02-20']],
  ['We moved here on April 2.', ['2023-04-02']],
  ["I can't wait for our trip on October 3!", ['2024-10-03']],
  ['The new cafe opened on October 3.', ['2023-10-03']],
  ['Her birthday is December 2.', ['2023-12-02']],
  ['On Friday we will go hiking.', ['2024-03-15']],
  ['On Friday we went hiking.', ['2024-03-08']],
  ["I'm going to call her on Thursday.", ['2024-03-14']],
  ['I painted the fence on Tuesday.', ['2024-03-05']],
  ['On Sunday we will have a barbecue.', ['2024-03-17']],
  ['On Saturday, Tom and I baked bread.', ['2024-03-09']],
  ['Last Friday we swam in the lake.', ['2024-03-08']],
  ['I went to Rome on Friday and will fly to Oslo on Monday.', ['2024-03-08', '2024-03-11']],
  ['We are planning a trip to Japan in January.', ['2025-01']],
  ['In January we went skiing.', ['2024-01']],
  ['We went to Lisbon in June.', ['2023-06']],
  ['In June we will go to Lisbon.', ['2024-06']],
  ['I hope to run a marathon in February.', ['2025-02']],
  ['Next September I start university.', ['2024-09']],
  ['Last December was cold.', ['2023-12']],
  ['Lisbon is lovely in August.', ['2024-08']],
  ["Let's meet on Thursday.", ['2024-03-14']],
  ['What did Caroline do in June?', ['2023-06']],
  ['What is Caroline doing in June?', ['2024-06']],
];

test('a date, month or weekday without a year resolves by tense: plans forward, the past back, else the nearest', () => {
  const wrong: string[] = [];
  for (const [sentence, expected] of BY_TENSE) {
    // A day is read as that day, a month alone as the whole month: "2024-01" stands for 2024-01-01 to 2024-01-31.
    const got = parseTimeExpressions(sentence, sunday).map((r, i) =>
      expected[i]?.length === 7 && r.start.slice(0, 7) === r.end.slice(0, 7) && r.start.slice(8, 10) === '01' && r.end.slice(8, 10) >= '28'
        ? r.start.slice(0, 7)
        : r.start.slice(0, 10),
    );
    if (JSON.stringify(got) !== JSON.stringify(expected)) wrong.push(`${sentence} -> ${got.join(', ')} (expected ${expected.join(', ')})`);
  }
  assert.deepEqual(wrong, [], `${wrong.length} of ${BY_TENSE.length} sentences`);
});

test('a text chrono reads a time in always passes the quick check, so skipping chrono loses nothing', () => {
  const timed = [
    'See you tonight!',
    'It lasts a few d.',
    'We moved this weekend',
    'on weekdays I code',
    'back in Sept.',
    'Thurs works for me',
    'a couple of hrs later',
    'half an hour ago',
    'next qtr we ship',
    'end of month',
    'We met at noon',
    'It was 3 years ago',
    'this y-intercept',
    'I saw Ann lastnight.',
    'Bob called a fewdays ago.',
    'Back in half ahour.',
    'couplehours later',
    'cut it in half and serve', // chrono reads "half an d"
  ];
  for (const text of timed) assert.ok(MAY_TELL_TIME.test(text), text);
  // Random word salads over time words, units, number words and ordinary words: whatever chrono reads, the check passes.
  const words = [
    ...'a an the few several couple of half one two twelve this last past next after ago later within in on at by from'.split(' '),
    ...'s m h d w y mo sec min hr day week month qtr year weekend weekday noon night morning'.split(' '),
    ...'jan may sept dec mon tue thurs fri sat sun today yesterday tomorrow tmr now'.split(' '),
    ...'lasts monster secure daylight mayor decision saturated minor hours, and ones tens'.split(' '),
    ...'we shipped it the release cache Redis build'.split(' '),
    ...'fewdays ahour couplehours lastnight halfan tenmins'.split(' '),
  ];
  fc.assert(
    fc.property(fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 8 }), fc.constantFrom(' ', ', ', '. '), (picked, glue) => {
      const text = picked.join(glue);
      if (chrono.parse(text, ref).length > 0) assert.ok(MAY_TELL_TIME.test(text), text);
    }),
    { numRuns: 3000 },
  );
  assert.equal(MAY_TELL_TIME.test('Use a connection pool and retry with backoff.'), false);
});

test('dates in the years 0000 to 0099 keep their year (Date.UTC read them as 1900 to 1999)', () => {
  const cases: Array<[string, string, string]> = [
    ['The meeting is on 0099-03-04.', '0099-03-04T00:00:00.000Z', '0099-03-04T23:59:59.999Z'],
    ['It began on 0000-01-01.', '0000-01-01T00:00:00.000Z', '0000-01-01T23:59:59.999Z'],
    ['It began on 0001-01-01.', '0001-01-01T00:00:00.000Z', '0001-01-01T23:59:59.999Z'],
    ['It was crowned on 0800-12-25.', '0800-12-25T00:00:00.000Z', '0800-12-25T23:59:59.999Z'],
  ];
  for (const [text, start, end] of cases) {
    const [r] = parseTimeExpressions(text, ref);
    assert.deepEqual([r?.start, r?.end], [start, end], text);
  }
});

test('a machine timestamp is its second (or minute); a time of day said in words is still its day', () => {
  const [zoned] = parseTimeExpressions('2023-05-05T14:32:10Z ERROR db pool exhausted', ref);
  assert.deepEqual([zoned.start, zoned.end], ['2023-05-05T14:32:10.000Z', '2023-05-05T14:32:10.999Z']);
  // Without a zone the stamp is read in UTC, whatever the host's zone.
  const [local] = parseTimeExpressions('2023-05-05 23:30:10 WARN retrying', ref);
  assert.deepEqual([local.start, local.end], ['2023-05-05T23:30:10.000Z', '2023-05-05T23:30:10.999Z']);
  const [slashed] = parseTimeExpressions('2023/5/5 14:32 job started', ref);
  assert.deepEqual([slashed.start, slashed.end], ['2023-05-05T14:32:00.000Z', '2023-05-05T14:32:59.999Z']);
  const [day] = parseTimeExpressions('released on 2023-05-05', ref);
  assert.deepEqual([day.start, day.end], ['2023-05-05T00:00:00.000Z', '2023-05-05T23:59:59.999Z']);
  const [iso] = parseTimeExpressions('2023-05-05T16:01Z INFO recovered', ref);
  assert.deepEqual([iso.start, iso.end], ['2023-05-05T16:01:00.000Z', '2023-05-05T16:01:59.999Z']);
  const [spoken] = parseTimeExpressions('We met at 3 pm on May 5.', ref);
  assert.deepEqual([spoken.start, spoken.end], ['2023-05-05T00:00:00.000Z', '2023-05-05T23:59:59.999Z']);
});

test("a time written without a zone means the same instant whatever the host's zone", () => {
  const zone = process.env.TZ;
  try {
    for (const tz of ['America/New_York', 'Asia/Kolkata', 'UTC']) {
      process.env.TZ = tz; // Node applies a new TZ to the dates made after it
      const [r] = parseTimeExpressions('2023-05-05 23:30:10 WARN retrying', ref);
      assert.deepEqual([r.start, r.end], ['2023-05-05T23:30:10.000Z', '2023-05-05T23:30:10.999Z'], tz);
      const [d] = parseTimeExpressions('We shipped it on 2023-05-05.', ref);
      assert.deepEqual([d.start, d.end], ['2023-05-05T00:00:00.000Z', '2023-05-05T23:59:59.999Z'], tz);
    }
  } finally {
    if (zone === undefined) delete process.env.TZ;
    else process.env.TZ = zone;
  }
});
