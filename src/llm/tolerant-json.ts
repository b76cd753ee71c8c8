// Recovers a JSON value from a model's reply: drops <think> blocks and code fences, takes the first balanced
// JSON object or array in the text, and forgives trailing commas. It never invents content: when no complete
// JSON value is there, it says why.

export type TolerantParse = { ok: true; value: unknown } | { ok: false; error: string };

const MAX_CANDIDATES = 32;

export function parseTolerantJson(reply: string): TolerantParse {
  const text = unwrap(reply);
  if (text === '') return { ok: false, error: 'the reply is empty' };
  const whole = tryParse(text);
  if (whole.ok) return whole;

  let start = nextOpening(text, 0);
  if (start === -1) return { ok: false, error: 'the reply contains no JSON object or array' };
  let lastError = whole.error;
  // Candidates are tried left to right; a candidate that fails is skipped whole, so a value nested inside
  // broken JSON is never mistaken for the answer.
  for (let tried = 0; start !== -1 && tried < MAX_CANDIDATES; tried++) {
    const end = balancedEnd(text, start);
    if (end === -1) {
      const what = text[start] === '{' ? 'object' : 'array';
      return { ok: false, error: `the JSON ${what} starting at character ${start} is never closed (cut-off reply?)` };
    }
    const parsed = tryParse(text.slice(start, end + 1));
    if (parsed.ok) return parsed;
    lastError = parsed.error;
    start = nextOpening(text, end + 1);
  }
  return { ok: false, error: `the reply is not valid JSON: ${lastError}` };
}

/** Removes reasoning blocks and, when the reply holds a fenced block, keeps the first fence's content. */
function unwrap(reply: string): string {
  const text = reply.replace(/<think>[\s\S]*?<\/think>/gi, '').trim();
  const fence = /```[a-zA-Z0-9_-]*[ \t]*\r?\n?([\s\S]*?)```/.exec(text);
  return (fence ? fence[1] : text).trim();
}

function tryParse(candidate: string): TolerantParse {
  try {
    return { ok: true, value: JSON.parse(candidate) };
  } catch (first) {
    const fixed = removeTrailingCommas(candidate);
    if (fixed !== candidate) {
      try {
        return { ok: true, value: JSON.parse(fixed) };
      } catch {
        // fall through to the first error, which describes the reply as given
      }
    }
    return { ok: false, error: (first as Error).message };
  }
}

function nextOpening(text: string, from: number): number {
  for (let i = from; i < text.length; i++) if (text[i] === '{' || text[i] === '[') return i;
  return -1;
}

/** Index of the bracket closing the one at `start`, skipping strings; -1 if it never closes or mismatches. */
export function balancedEnd(text: string, start: number): number {
  const stack: string[] = [];
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if (c === '{') stack.push('}');
    else if (c === '[') stack.push(']');
    else if (c === '}' || c === ']') {
      if (stack.pop() !== c) return -1;
      if (stack.length === 0) return i;
    }
  }
  return -1;
}

/** Drops commas that directly precede a closing bracket (outside strings): `[1, 2,]` becomes `[1, 2]`. */
export function removeTrailingCommas(json: string): string {
  let out = '';
  let inString = false;
  for (let i = 0; i < json.length; i++) {
    const c = json[i];
    if (inString) {
      out += c;
      if (c === '\\' && i + 1 < json.length) out += json[++i];
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    if (c === ',') {
      let j = i + 1;
      while (j < json.length && /\s/.test(json[j])) j++;
      if (json[j] === '}' || json[j] === ']') continue;
    }
    out += c;
  }
  return out;
}
