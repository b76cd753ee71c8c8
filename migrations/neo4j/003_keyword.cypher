// The keyword arm: Lucene full-text indexes (BM25 scoring, English analyzer: lowercasing, stopwords, Porter
// stemming) over fact texts and over chunk texts (speaker-prefixed, as the embedded store indexes them).
// Superseded: each bank now has its own pair (migration 005); 006 drops these two.
CREATE FULLTEXT INDEX fact_text IF NOT EXISTS FOR (f:Fact) ON EACH [f.text] OPTIONS { indexConfig: { `fulltext.analyzer`: 'english' } };
CREATE FULLTEXT INDEX chunk_text IF NOT EXISTS FOR (c:Chunk) ON EACH [c.searchText] OPTIONS { indexConfig: { `fulltext.analyzer`: 'english' } };
