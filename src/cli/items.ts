// Reading the items `cairn retain` stores: a JSON array or {items}, JSONL (one item per line) or plain text (one
// item). Every problem is an error naming the file and the line or item, checked before any store is opened.
import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { describeIssues, RetainItemSchema } from '../api/index.ts';
import type { RetainItem } from '../retain/index.ts';

function readText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new Error(
      `cannot read ${file}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : (e as Error).message}`,
    );
  }
}

function item(value: unknown, where: string): RetainItem {
  const parsed = RetainItemSchema.safeParse(value);
  if (!parsed.success) throw new Error(`${where}: ${describeIssues(parsed.error.issues)}`);
  return parsed.data;
}

/** Items from a file: a JSON array or {items}, JSONL (one item per line), or plain text (one item). */
export function readItems(file: string, documentId?: string): RetainItem[] {
  const text = readText(file);
  const ext = extname(file).toLowerCase();
  if (ext === '.json') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (e) {
      throw new Error(`${file} is not valid JSON: ${(e as Error).message}`);
    }
    const raw = Array.isArray(parsed) ? parsed : (parsed as { items?: unknown } | null)?.items;
    if (!Array.isArray(raw)) throw new Error(`${file} must hold an array of items or an object {"items": [...]}`);
    return raw.map((r, i) => item(r, `${file} item ${i}`));
  }
  if (ext === '.jsonl' || ext === '.ndjson') {
    const items: RetainItem[] = [];
    for (const [i, line] of text.split('\n').entries()) {
      if (!line.trim()) continue;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch (e) {
        throw new Error(`${file} line ${i + 1} is not valid JSON: ${(e as Error).message}`);
      }
      items.push(item(value, `${file} line ${i + 1}`));
    }
    return items;
  }
  return [item({ content: text, documentId: documentId ?? file }, file)];
}
