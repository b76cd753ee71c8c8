// The face of src/text: the language helpers retain, recall, consolidation and threads share. Other folders import
// text through this file only (src/layout.test.ts checks it).
export {
  codeTerms,
  commandsOf,
  isCodeFragment,
  isCodeWord,
  isFileName,
  isKnownTool,
  isLibraryName,
  isShapedName,
  namedInCode,
  type NamedThing,
  shapedNames,
  toolsInProse,
} from './identifiers.ts';
export {
  codeSpans,
  inlineCode,
  isCodeLine,
  isLogText,
  linesOf,
  logMessage,
  scanBlocks,
  withoutEmphasis,
  withoutLogLevel,
} from './markup.ts';
export { CAUSATIVE, hasUnresolvedYou, toThirdPerson } from './person.ts';
export { sentencesOf } from './sentences.ts';
export { parseSessionExpressions, type SessionExpression, type SessionRef } from './session-expressions.ts';
export { type Stance, stanceOf, STANCES } from './stance.ts';
export { stem } from './stem.ts';
export { parseTimeExpressions, type TimeRange, utcTime } from './time-expressions.ts';
export { countTokens } from './tokens.ts';
export { contentWords, isStopword, nameKey, words } from './words.ts';
