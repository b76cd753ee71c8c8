// The plain-text form of offline observations and reflections: dated lines of attributed sentences, e.g.
// "[8 May 2023] Caroline: I joined a support group. Melanie: I painted a sunrise." Written by the offline
// observer and reflector and read back by the reflector: one note per speaker turn (any other text reads as
// undated, unattributed notes, one per sentence).
import { splitSentences } from './salience.ts';

export interface Note {
  date: string | null;
  speaker: string | null;
  text: string;
}

/** Groups consecutive notes by date, one line per date, each note led by its speaker. */
export function formatNotes(notes: ReadonlyArray<Note>): string {
  const lines: string[] = [];
  let line = '';
  let date: string | null | undefined;
  for (const n of notes) {
    if (n.date !== date || line === '') {
      if (line) lines.push(line);
      line = n.date ? `[${n.date}]` : '';
      date = n.date;
    }
    // Every note names its speaker, so each reads back as its own note (a speaker's turn stays one unit).
    const piece = n.speaker ? `${n.speaker}: ${n.text}` : n.text;
    line = line ? `${line} ${piece}` : piece;
  }
  if (line) lines.push(line);
  return lines.join('\n');
}

/** A speaker label: at the start of a line or after the end of a sentence; a name of up to three capitalised words. */
const SPEAKER = /(?:^|(?<=[.!?)\]"'’]) )([A-Z][\p{L}'’-]*(?: [A-Z][\p{L}'’-]*){0,2}): /gu;

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
      const start = m.index;
      if (start > cursor) segments.push({ speaker, body: line.slice(cursor, start) });
      speaker = m[1];
      cursor = start + m[1].length + 2;
    }
    segments.push({ speaker, body: line.slice(cursor) });
    for (const seg of segments) {
      // An attributed segment is one note (what one speaker said, kept together); other text reads sentence by sentence.
      const body = seg.body.trim();
      if (seg.speaker && body) notes.push({ date, speaker: seg.speaker, text: body });
      else for (const s of splitSentences(body)) notes.push({ date, speaker: seg.speaker, text: s });
    }
  }
  return notes;
}
