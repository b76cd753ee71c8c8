// The entity graph of the embedded store, held in graphology: entity and fact nodes, fact-entity edges and
// fact-fact links. Loaded per bank on first use from SQLite, updated in place after this process's writes,
// and reloaded when another process (a separate worker) has changed the bank.
import { MultiUndirectedGraph } from 'graphology';
import type { Entity, FactLink, LinkType } from '../../core/types.ts';
import type { GraphIndex } from '../ports.ts';
import type { Db } from './database.ts';
import { placeholders, toEntity, type Row } from './rows.ts';
import { prepared } from './statements.ts';

type NodeAttrs = { kind: 'fact' | 'entity' };
type EdgeAttrs = { type: LinkType | 'mention'; weight: number };
type Graph = MultiUndirectedGraph<NodeAttrs, EdgeAttrs>;
type BankGraph = { graph: Graph; version: number };

const F = (id: string): string => `f:${id}`;
const E = (id: string): string => `e:${id}`;

export class SqliteGraphIndex implements GraphIndex {
  private readonly banks = new Map<string, BankGraph>();

  constructor(private readonly db: Db) {}

  /** Called by the store after it committed a write that changed the bank's graph. */
  applyWrite(bankId: string, mentions: Array<{ factId: string; entityId: string }>, links: FactLink[], version: number): void {
    const bg = this.following(bankId, version);
    if (!bg) return;
    const { graph } = bg;
    for (const m of mentions) addMention(graph, m.factId, m.entityId);
    for (const l of links) addLink(graph, l.from, l.to, l.type, l.weight);
    bg.version = version;
  }

  /** Called by the store after it committed a write that changed the mentions and links of these facts only (added,
   * replaced or removed): their nodes are dropped and what the database now holds for them is read back. */
  refreshFacts(bankId: string, factIds: string[], version: number): void {
    const bg = this.following(bankId, version);
    if (!bg) return;
    const { graph } = bg;
    const neighbours = new Set<string>();
    for (const id of factIds) {
      if (!graph.hasNode(F(id))) continue;
      graph.forEachNeighbor(F(id), (n) => neighbours.add(n));
      graph.dropNode(F(id));
    }
    const ids = JSON.stringify(factIds);
    addRows(graph,
      prepared(this.db,
          'SELECT fact_id, entity_id FROM fact_entities WHERE fact_id IN (SELECT value FROM json_each(?)) AND bank_id = ?')
        .raw().all(ids, bankId) as MentionRow[],
      prepared(this.db,
          `SELECT from_id, to_id, type, weight FROM fact_links WHERE from_id IN (SELECT value FROM json_each(@ids)) AND bank_id = @bank
           UNION ALL
           SELECT from_id, to_id, type, weight FROM fact_links
           WHERE to_id IN (SELECT value FROM json_each(@ids)) AND from_id NOT IN (SELECT value FROM json_each(@ids)) AND bank_id = @bank`)
        .raw().all({ ids, bank: bankId }) as LinkRow[]);
    // A node left without edges (an entity no fact mentions any more) is not in a graph loaded afresh either.
    for (const n of neighbours) if (graph.hasNode(n) && graph.degree(n) === 0) graph.dropNode(n);
    bg.version = version;
  }

  /** The cached graph a write of this version follows on from, or null: none cached, or it missed a change (dropped,
   * so the next use reloads it). */
  private following(bankId: string, version: number): BankGraph | null {
    const bg = this.banks.get(bankId);
    if (!bg) return null;
    if (bg.version === version - 1) return bg;
    this.banks.delete(bankId);
    return null;
  }

  /** Called after deletes: the simplest correct move is to drop the cached graph. */
  invalidate(bankId: string): void {
    this.banks.delete(bankId);
  }

  private load(bankId: string): Graph {
    const version = this.versionOf(bankId);
    const cached = this.banks.get(bankId);
    if (cached && cached.version === version) return cached.graph;
    const graph = new MultiUndirectedGraph<NodeAttrs, EdgeAttrs>({ allowSelfLoops: false });
    // Rows read as arrays and each node added once before its edges: a bank of 100k facts has ~500k edges.
    addRows(graph,
      prepared(this.db, 'SELECT fact_id, entity_id FROM fact_entities WHERE bank_id = ?').raw().all(bankId) as MentionRow[],
      prepared(this.db, 'SELECT from_id, to_id, type, weight FROM fact_links WHERE bank_id = ?').raw().all(bankId) as LinkRow[]);
    this.banks.set(bankId, { graph, version });
    return graph;
  }

  private versionOf(bankId: string): number {
    const row = prepared(this.db, 'SELECT graph_version AS v FROM bank_versions WHERE bank_id = ?').get(bankId) as { v: number } | undefined;
    return row?.v ?? 0;
  }

  async entitiesByKeys(bankId: string, keys: string[]): Promise<Entity[]> {
    if (keys.length === 0) return [];
    const rows = prepared(this.db,
        `SELECT DISTINCT e.* FROM entity_keys k JOIN entities e ON e.id = k.entity_id
         WHERE k.bank_id = ? AND k.key IN (${placeholders(keys.length)})`,
      )
      .all(bankId, ...keys) as Row[];
    return rows.map(toEntity);
  }

  async factsOfEntities(bankId: string, entityIds: string[], limitPerEntity: number): Promise<Array<{ factId: string; entityId: string }>> {
    const graph = this.load(bankId);
    const out: Array<{ factId: string; entityId: string }> = [];
    for (const entityId of entityIds) {
      const node = E(entityId);
      if (!graph.hasNode(node)) continue;
      let n = 0;
      graph.forEachNeighbor(node, (neighbor) => {
        if (n >= limitPerEntity) return;
        out.push({ factId: neighbor.slice(2), entityId });
        n++;
      });
    }
    return out;
  }

  async linksOf(bankId: string, factIds: string[]): Promise<FactLink[]> {
    const graph = this.load(bankId);
    const out: FactLink[] = [];
    for (const factId of factIds) {
      const node = F(factId);
      if (!graph.hasNode(node)) continue;
      graph.forEachEdge(node, (_edge, attrs, source, target) => {
        if (attrs.type === 'mention') return;
        const other = source === node ? target : source;
        out.push({ bankId, from: factId, to: other.slice(2), type: attrs.type, weight: attrs.weight });
      });
    }
    return out;
  }
}

/** fact_entities and fact_links rows read as arrays. */
type MentionRow = [factId: string, entityId: string];
type LinkRow = [from: string, to: string, type: LinkType, weight: number];

function addRows(graph: Graph, mentions: MentionRow[], links: LinkRow[]): void {
  for (const [factId, entityId] of mentions) addMention(graph, factId, entityId);
  for (const [from, to, type, weight] of links) addLink(graph, from, to, type, weight);
}

/** The node's key, the node added first if the graph lacks it (cheaper than mergeNode, which also merges attributes). */
function node(graph: Graph, key: string, kind: NodeAttrs['kind']): string {
  if (!graph.hasNode(key)) graph.addNode(key, { kind });
  return key;
}

function addMention(graph: Graph, factId: string, entityId: string): void {
  graph.addEdge(node(graph, F(factId), 'fact'), node(graph, E(entityId), 'entity'), { type: 'mention', weight: 1 });
}

function addLink(graph: Graph, from: string, to: string, type: LinkType, weight: number): void {
  if (from !== to) graph.addEdge(node(graph, F(from), 'fact'), node(graph, F(to), 'fact'), { type, weight });
}
