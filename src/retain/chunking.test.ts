// Chunking reads sentences in windows (the segmenter is slow on long strings): the sentences must be the ones the
// segmenter finds in the whole text, and chunks must still cover the content at their offsets.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { chunkText, MAX_CHUNK_CHARS } from './chunking.ts';
import { sentencesOf } from '../text/sentences.ts';

const segmenter = new Intl.Segmenter('en', { granularity: 'sentence' });

const TEXTS: Record<string, string> = {
  paragraphs: Array.from(
    { length: 1500 },
    (_, i) => `Person${i} moved to City${i % 97} in ${1990 + (i % 30)}.${i % 13 === 0 ? '\n\n' : ' '}`,
  ).join(''),
  'one paragraph': Array.from({ length: 900 }, (_, i) => `Dr. Who met e.g. Person${i} at 3.5 p.m. in City${i % 97}! Really? yes.`).join(
    ' ',
  ),
  'no sentence ends': 'word '.repeat(9000),
  'one long word': 'x'.repeat(40_000),
};

test('sentences read in windows are the sentences of the whole text', () => {
  for (const [name, text] of Object.entries(TEXTS)) {
    assert.ok(text.length > 32_000, `${name} spans several windows`);
    const whole = [...segmenter.segment(text)].map((s) => ({ segment: s.segment, index: s.index }));
    const windowed = [...sentencesOf(text)];
    if (name === 'no sentence ends' || name === 'one long word') {
      // No sentence break to cut at: the windows cut at a space or the edge, and still cover the text in order.
      assert.equal(windowed.map((s) => s.segment).join(''), text, name);
      assert.ok(
        windowed.every((s) => text.startsWith(s.segment, s.index)),
        name,
      );
    } else assert.deepEqual(windowed, whole, name);
  }
});

test('chunks of a long text cover it at their offsets, each within the size limit', () => {
  for (const [name, text] of Object.entries(TEXTS)) {
    const chunks = chunkText(text);
    assert.ok(chunks.length > 1, name);
    for (const c of chunks) {
      assert.equal(text.slice(c.offset, c.offset + c.text.length), c.text, name);
      assert.ok(c.text.length <= MAX_CHUNK_CHARS, name);
    }
  }
});

test('a code block that fits in a chunk is not cut, and stays with the sentence introducing it', () => {
  const prose = Array.from({ length: 30 }, (_, i) => `Sentence ${i} says something about the deployment.`).join(' ');
  const code = `\`\`\`js\n${Array.from({ length: 20 }, (_, i) => `const value${i} = compute(${i});`).join('\n')}\n\`\`\``;
  const text = `${prose}\n\nHere is the fix:\n${code}\n\nThat should do it.`;
  const chunks = chunkText(text);
  const holding = chunks.filter((c) => c.text.includes('```'));
  assert.equal(holding.length, 1, 'one chunk holds the whole block');
  assert.ok(holding[0].text.includes(code), 'the block is whole');
  assert.ok(holding[0].text.includes('Here is the fix:'), 'with its introduction');
});

test('a code block longer than a chunk is cut between its lines', () => {
  const code = `\`\`\`python\n${Array.from({ length: 200 }, (_, i) => `result_${i} = transform(frame, column="c${i}")`).join('\n')}\n\`\`\``;
  const text = `Run this:\n${code}\nDone.`;
  const chunks = chunkText(text);
  assert.ok(chunks.length > 1);
  for (const c of chunks) {
    assert.equal(text.slice(c.offset, c.offset + c.text.length), c.text);
    assert.ok(c.text.length <= MAX_CHUNK_CHARS);
    assert.ok(
      /^(Run this:|result_\d+ =|```)/.test(c.text) && /(\)|```|Done\.)$/.test(c.text),
      `cut between lines: ${c.text.slice(0, 30)}...${c.text.slice(-30)}`,
    );
  }
});
