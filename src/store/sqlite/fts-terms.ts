// The terms the keyword tables' tokenizer makes of words (FTS5's porter unicode61: lowercased, diacritics folded,
// Porter-stemmed), read from a private in-memory FTS5 table, so the BM25 scorer (bm25.ts) looks postings up by
// exactly the terms FTS5 stored, with no second stemmer that could disagree with it.
import Database from 'better-sqlite3';
import { KEYWORD_TOKENIZER } from './keyword-tables.ts';

type Tokenizer = { db: Database.Database; insert: Database.Statement; read: Database.Statement; clear: Database.Statement };

let tokenizer: Tokenizer | null = null;

function open(): Tokenizer {
  const db = new Database(':memory:');
  db.exec(`CREATE VIRTUAL TABLE words USING fts5(text, tokenize='${KEYWORD_TOKENIZER}');
           CREATE VIRTUAL TABLE word_terms USING fts5vocab(words, instance);`);
  return {
    db,
    insert: db.prepare('INSERT INTO words (rowid, text) VALUES (?, ?)'),
    read: db.prepare('SELECT doc, term, offset FROM word_terms'),
    clear: db.prepare('DELETE FROM words'),
  };
}

/** The terms of each word, in order (a word the tokenizer splits, "e-mail", gives several; punctuation none). */
export function ftsTermsOf(words: readonly string[]): string[][] {
  const t = (tokenizer ??= open());
  const out: Array<Array<{ term: string; offset: number }>> = words.map(() => []);
  t.db.transaction(() => {
    words.forEach((w, i) => t.insert.run(i + 1, w));
    for (const r of t.read.all() as Array<{ doc: number; term: string; offset: number }>) out[r.doc - 1].push(r);
    t.clear.run();
  })();
  return out.map((terms) => terms.sort((a, b) => a.offset - b.offset).map((x) => x.term));
}
