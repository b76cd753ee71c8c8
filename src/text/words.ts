// Word-level text helpers shared by the keyword arm, entity resolution and the offline NLP: tokenizing,
// stopwords, and the normalized key under which names are matched.

const STOPWORDS = new Set(
  `a about above after again against all am an and any are as at be because been before being below between both but by
  can could did do does doing down during each few for from further had has have having he her here hers herself him himself
  his how i if in into is it its itself just me more most my myself no nor not now of off on once only or other our ours
  ourselves out over own same she should so some such than that the their theirs them themselves then there these they this
  those through to too under until up very was we were what when where which while who whom why will with would you your
  yours yourself yourselves also yes yeah oh ok okay really im ive dont didnt thats its got get gets let lets us much many
  one ones thing things something anything way did does going go went gonna wanna hey hi hello thanks thank`.split(/\s+/),
);

export const isStopword = (word: string): boolean => STOPWORDS.has(word.toLowerCase());

/** Lowercased word tokens (letters and digits, apostrophes dropped). */
export function words(text: string): string[] {
  return (
    text
      .toLowerCase()
      .replace(/['’]/g, '')
      .match(/[\p{L}\p{N}]+/gu) ?? []
  );
}

/** Words worth searching for: no stopwords, no single letters. */
export function contentWords(text: string): string[] {
  return words(text).filter((w) => w.length > 1 && !STOPWORDS.has(w));
}

/** The key a name is matched under: lowercase, possessive and punctuation stripped, spaces folded. */
export function nameKey(name: string): string {
  return name
    .toLowerCase()
    .replace(/['’]s\b/g, '')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}
