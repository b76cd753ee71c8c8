// The plain-text form of offline observations and reflections: dated lines of attributed sentences, e.g.
// "[8 May 2023] Caroline: I joined a support group. Melanie: I painted a sunrise." Written by the offline
// observer and reflector and read back by the reflector (any other text reads as undated, unattributed notes).
import { splitSentences } from './salience.ts';

export interface Note {
  date: string | null;
  speaker: string | null;
  text: string;
}

/** Groups consecutive notes by date, then by speaker, one line per date. */
export function formatNotes(notes: ReadonlyArray<Note>): string {
  const lines: string[] = [];
  let line = '';
  let date: string | null | undefined;
  let speaker: string | null | undefined;
  for (const n of notes) {
    if (n.date !== date || line === '') {
      if (line) lines.push(line);
      line = n.date ? `[${n.date}]` : '';
      date = n.date;
      speaker = undefined;
    }
    const piece = n.speaker !== speaker && n.speaker ? `${n.speaker}: ${n.text}` : n.text;
    line = line ? `${line} ${piece}` : piece;
    speaker = n.speaker;
  }
  if (line) lines.push(line);
  return lines.join('\n');
}

const SPEAKER = /(?:^|\s)([A-Z][\p{L}'.-]*(?: [A-Z][\p{L}'.-]*){0,2}): /gu;

export function parseNotes(text: string): Note[] {
  const notes: Note[] = [];
  for (const raw of text.split('\n')) {
    let line = raw.trim();
    if (!line) continue;
    let date: string | null = null;
    const d = /^\[([^\]]{1,40})\]\s*/.exec(line);
    if (d) {
      date = d[1];
      line = line.slice(d[0].length);
    }
    const marks = [...line.matchAll(SPEAKER)];
    const segments: Array<{ speaker: string | null; body: string }> = [];
    let cursor = 0;
    let speaker: string | null = null;
    for (const m of marks) {
      const start = m.index + (m[0].startsWith(' ') ? 1 : 0);
      if (start > cursor) segments.push({ speaker, body: line.slice(cursor, start) });
      speaker = m[1];
      cursor = start + m[1].length + 2;
    }
    segments.push({ speaker, body: line.slice(cursor) });
    for (const seg of segments) for (const s of splitSentences(seg.body)) notes.push({ date, speaker: seg.speaker, text: s });
  }
  return notes;
}
