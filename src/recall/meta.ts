// Words a question uses about the conversation itself rather than its topic: "walk me through the order in which I
// brought up different aspects of X throughout our conversations (mention 9 items)" is about X. Left in, such
// phrases match every message that says "order", "mention" or "different", and in a word-vector average they pull
// toward chatter about chatting. The similarity arms search without them (the query itself still goes to the arms
// that read intent: time, sessions, attributes).
const META_PHRASES: RegExp[] = [
  /\((?:please\s+)?mention\s+\w+\s+items?(?:\s+in\s+order)?\)/gi,
  /\bmention\s+\w+\s+items?(?:\s+in\s+order)?/gi,
  /\b(?:can|could|would)\s+you\s+(?:please\s+)?(?:give|walk|list|tell|remind|help|summari[sz]e|describe|explain|show)\b(?:\s+me)?/gi,
  /\b(?:give|walk|tell|remind|show)\s+me(?:\s+through)?\b/gi,
  /\bwalk(?:ing)?\s+(?:me\s+)?through\b/gi,
  /\b(?:a|an|the)\s+(?:thorough|detailed|simple|short|brief|quick|full|complete|comprehensive)\s+(?:summary|overview|recap)\b/gi,
  /\b(?:a|an|the)\s+(?:summary|overview|recap)\b/gi,
  /\b(?:that|which)\s+(?:captures|ties\s+together|covers|brings\s+together)\b/gi,
  /\bties\s+(?:everything\s+)?together\b/gi,
  /\bthe\s+full\s+scope\s+of\b/gi,
  /\beverything\s+(?:involved\s+in|we['’]ve\s+discussed|we\s+discussed|about)\b/gi,
  /\b(?:the\s+)?order\s+in\s+which\b/gi,
  /\bin\s+(?:the\s+)?order\b/gi,
  /\b(?:i|we)\s+(?:brought|bring)\s+up\b/gi,
  /\bbrought\s+up\b/gi,
  /\bdifferent\s+(?:aspects|concepts|things|topics|items|features|parts)\s+(?:of|related\s+to|regarding|about)\b/gi,
  /\b(?:related\s+to|regarding)\b/gi,
  /\b(?:throughout|in|across|from|during)\s+(?:all\s+)?(?:of\s+)?our\s+(?:recent\s+|earlier\s+|previous\s+|past\s+)?(?:conversations?|chats?|discussions?|sessions?|talks?)\b/gi,
  /\b(?:we['’]ve|we\s+have|we)\s+(?:discussed|talked\s+about|covered|gone\s+over)\b/gi,
  /\b(?:that\s+)?came\s+up\b/gi,
  /\bcovering\s+all\s+(?:the\s+)?(?:key\s+)?\b/gi,
  /\bhow\s+did\s+my\s+discussions?\s+about\b/gi,
];

/** The query without phrases about the conversation itself; the query unchanged when no topic word would remain. */
export function withoutMeta(query: string, hasContent: (text: string) => boolean): string {
  let out = query;
  for (const re of META_PHRASES) out = out.replace(re, ' ');
  out = out.replace(/\s+/g, ' ').trim();
  return hasContent(out) ? out : query;
}
