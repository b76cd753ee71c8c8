// Entity resolution: mentions become canonical entities of the bank. One person is one entity across items:
// matching ignores case and possessives, knows aliases, and a lone first name joins the single known full
// name that starts with it ("Alice" -> "Alice Smith").
import { newId, type Entity } from '../core/index.ts';
import type { MemoryWrites } from '../store/index.ts';
import { nameKey } from '../text/index.ts';
import type { ExtractedEntity } from './extractor.ts';

export class EntityResolver {
  /** Entities touched in this batch, by id (new ones and updated copies of stored ones). */
  readonly touched = new Map<string, Entity>();
  private readonly byKey = new Map<string, Entity>();

  constructor(
    private readonly store: MemoryWrites,
    private readonly bankId: string,
  ) {}

  /** Loads the stored entities the batch's mentions could resolve to. */
  async preload(mentions: ExtractedEntity[]): Promise<void> {
    const keys = new Set<string>();
    for (const m of mentions) {
      const key = nameKey(m.name);
      if (!key) continue;
      keys.add(key);
      keys.add(key.split(' ')[0]);
    }
    for (const e of await this.store.findEntities(this.bankId, [...keys])) this.index(e);
  }

  private index(e: Entity): void {
    for (const name of [e.name, ...e.aliases]) {
      const k = nameKey(name);
      if (k && !this.byKey.has(k)) this.byKey.set(k, e);
    }
  }

  private find(key: string): Entity | undefined {
    const exact = this.byKey.get(key);
    if (exact) return exact;
    if (key.includes(' ')) {
      // "Alice Smith" after "Alice": the full name becomes the canonical name of the first-name entity.
      const first = this.byKey.get(key.split(' ')[0]);
      if (first && !nameKey(first.name).includes(' ')) return first;
      return undefined;
    }
    const candidates = new Set<Entity>();
    for (const [k, e] of this.byKey) if (k.startsWith(`${key} `)) candidates.add(e);
    return candidates.size === 1 ? [...candidates][0] : undefined;
  }

  /** Resolves one mention at a time (for the fact being built), returning the entity id. */
  resolve(mention: ExtractedEntity, at: string): string | null {
    const key = nameKey(mention.name);
    if (!key) return null;
    const found = this.find(key);
    if (found) {
      const e = this.touched.get(found.id) ?? { ...found, aliases: [...found.aliases] };
      const name = mention.name.trim();
      if (key.includes(' ') && !nameKey(e.name).includes(' ')) {
        e.aliases.push(e.name);
        e.name = name;
      } else if (nameKey(e.name) !== key && !e.aliases.some((a) => nameKey(a) === key)) e.aliases.push(name);
      e.type ??= mention.type;
      e.mentionCount += 1;
      if (at < e.firstSeen) e.firstSeen = at;
      if (at > e.lastSeen) e.lastSeen = at;
      this.touched.set(e.id, e);
      this.index(e);
      return e.id;
    }
    const e: Entity = {
      id: newId('ent'),
      bankId: this.bankId,
      name: mention.name.trim(),
      aliases: [],
      type: mention.type,
      mentionCount: 1,
      firstSeen: at,
      lastSeen: at,
    };
    this.touched.set(e.id, e);
    this.index(e);
    return e.id;
  }
}
