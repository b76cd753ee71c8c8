// The attributes a user's first-person statement sets in their profile, each of which holds one value at a time:
// where they live, where they work, their job title, manager, partner, age, name, and each favourite. A later
// statement of the same attribute ("I moved to Porto" after "I live in Leeds") supersedes the earlier one, so the
// working memory can replace it instead of stating both.

interface Attribute {
  /** The attribute's key, or a function of the match for keyed families ("favourite:band"). */
  key: string | ((m: RegExpExecArray) => string);
  section: 'Profile' | 'Preferences';
  re: RegExp;
  /** Must also hold for the match to count (e.g. a name, not a description, follows "my manager is"). */
  accept?: (m: RegExpExecArray) => boolean;
}

const A = "['’]";
/** The words after "is" name someone: "Sam", "Dr Patel", "called Ana"; not "strict" or "a doctor". */
const names = (m: RegExpExecArray): boolean => /^(?:called |named )?\p{Lu}/u.test(m.input.slice(m.index + m[0].length).trimStart());

const ATTRIBUTES: Attribute[] = [
  { key: 'name', section: 'Profile', re: /\b(?:my name is|call me)\b/i },
  {
    key: 'residence',
    section: 'Profile',
    re: new RegExp(
      `\\bi(?:${A}ve| have)? (?:now |currently |still |just |recently |finally )*(?:live in|moved (?:back )?to|relocated to)\\b|\\bi(?:${A}m| am) (?:now |currently )?(?:living|based) in\\b|\\bmy (?:new )?home is in\\b`,
      'i',
    ),
  },
  {
    key: 'workplace',
    section: 'Profile',
    re: new RegExp(
      `\\b(?:i|and) (?:now |currently |still )?work (?:at|for)\\b|\\bi(?:${A}m| am) (?:now )?working (?:at|for)\\b|\\bi(?:${A}ve| have)? (?:just |recently )?(?:started|began) (?:working |a (?:new )?job )?(?:at|for|with)\\b|\\bi (?:got|took) a (?:new )?job (?:at|with)\\b|\\bmy (?:new )?(?:employer|company) is\\b`,
      'i',
    ),
  },
  {
    key: 'job title',
    section: 'Profile',
    re: new RegExp(
      `\\b(?:work|working|employed|started|start|hired|joined)\\b[^.;!?]{0,40}?\\bas an?\\b|\\bmy (?:new )?(?:job title|job|role|position|title) is\\b|\\bi (?:got |was |have been |${A}ve been )?promoted to\\b|\\bi(?:${A}m| am) now an? \\w+ (?:at|for)\\b`,
      'i',
    ),
  },
  {
    key: 'manager',
    section: 'Profile',
    re: /\bmy (?:new )?(?:line )?(?:manager|boss|supervisor|team lead)(?:'s name)? is\b/i,
    accept: names,
  },
  { key: 'manager', section: 'Profile', re: /\bi (?:now )?report to\b/i },
  {
    key: 'partner',
    section: 'Profile',
    re: /\bmy (?:new )?(?:wife|husband|partner|girlfriend|boyfriend|fianc[ée]e?|spouse)(?:'s name)? is\b/i,
    accept: names,
  },
  { key: 'partner', section: 'Profile', re: new RegExp(`\\bi(?:${A}m| am| got)? (?:now )?(?:married to|engaged to|dating)\\b`, 'i') },
  {
    key: 'age',
    section: 'Profile',
    re: new RegExp(
      `\\bi(?:${A}m| am) (?:now )?\\d{1,3}(?: years old| years of age|(?=[.,!;]| and| now|$))|\\bi (?:just |recently )?turned \\d{1,3}\\b`,
      'i',
    ),
  },
  {
    key: (m) => `favourite:${m[1].toLowerCase()}`,
    section: 'Preferences',
    re: /\bmy (?:absolute |all-time |new )*favou?rite ([a-z]+(?: [a-z]+)?) (?:is|are|has to be|would be)\b/i,
  },
];

export interface ProfileAttributes {
  keys: Set<string>;
  /** Where a statement of these attributes belongs, when it sets any. */
  section: 'Profile' | 'Preferences' | null;
}

/** The single-valued attributes a first-person sentence states. */
export function attributesOf(sentence: string): ProfileAttributes {
  const keys = new Set<string>();
  let section: ProfileAttributes['section'] = null;
  for (const a of ATTRIBUTES) {
    const m = a.re.exec(sentence);
    if (!m || (a.accept && !a.accept(m))) continue;
    keys.add(typeof a.key === 'string' ? a.key : a.key(m));
    // Profile wins when a sentence sets both kinds.
    if (section !== 'Profile') section = a.section;
  }
  return { keys, section };
}
