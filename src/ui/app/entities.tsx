// Entity graph: a bank's most-mentioned entities as an interactive graph (sigma.js drawing a graphology graph laid
// out by ForceAtlas2), sized by mentions, joined where facts name two of them together. Choosing an entity, on the
// graph or in the list beside it (the keyboard's way in), lists its facts and the observations about it.
import Graph from 'graphology';
import forceAtlas2 from 'graphology-layout-forceatlas2';
import { useEffect, useRef, useState } from 'preact/hooks';
import Sigma from 'sigma';
import { type CairnClient, type components, unwrap } from '../../../clients/typescript/src/index.ts';
import { BankPicker, ErrorLine, messageOf, useBanks, useLatest } from './common.tsx';

type Entity = components['schemas']['Entity'];
type Fact = components['schemas']['Fact'];
interface EntityGraph {
  nodes: Entity[];
  edges: Array<{ source: string; target: string; weight: number }>;
}

/** Entities drawn: the most-mentioned ones (the API caps the graph at 500). */
const NODES = 150;
/** Colours by entity type, each readable as a label on white (contrast >= 4.5:1). */
const TYPE_COLOURS: Record<string, string> = { person: '#0b5cad', place: '#1d6b2f', organization: '#8a3b00', thing: '#6b2d8a' };
const OTHER_COLOUR = '#4d5660';
const CHOSEN_COLOUR = '#c0392b';

function colourOf(type: string | null): string {
  return TYPE_COLOURS[(type ?? '').toLowerCase()] ?? OTHER_COLOUR;
}

/** A graphology graph of the entities, sized by mentions, placed on a circle and then by ForceAtlas2. */
function toGraph({ nodes, edges }: EntityGraph): Graph {
  const graph = new Graph({ type: 'undirected' });
  const most = Math.max(1, ...nodes.map((n) => n.mentionCount));
  nodes.forEach((n, i) => {
    const angle = (2 * Math.PI * i) / Math.max(1, nodes.length);
    graph.addNode(n.id, {
      label: n.name,
      x: Math.cos(angle),
      y: Math.sin(angle),
      size: 4 + 14 * Math.sqrt(n.mentionCount / most),
      baseSize: 4 + 14 * Math.sqrt(n.mentionCount / most),
      color: colourOf(n.type),
      baseColor: colourOf(n.type),
    });
  });
  const heaviest = Math.max(1, ...edges.map((e) => e.weight));
  for (const e of edges)
    if (graph.hasNode(e.source) && graph.hasNode(e.target) && !graph.hasEdge(e.source, e.target))
      graph.addEdge(e.source, e.target, { size: 1 + 3 * (e.weight / heaviest), color: '#aab2bb', weight: e.weight });
  if (graph.order > 1) forceAtlas2.assign(graph, { iterations: 150, settings: forceAtlas2.inferSettings(graph) });
  return graph;
}

function GraphView({ data, chosen, onChoose }: { data: EntityGraph; chosen: string | null; onChoose: (id: string) => void }) {
  const box = useRef<HTMLDivElement>(null);
  const renderer = useRef<Sigma | null>(null);
  const choose = useRef(onChoose);
  choose.current = onChoose;

  useEffect(() => {
    if (!box.current) return;
    const graph = toGraph(data);
    // Node sizes in screen pixels (sigma 4 reads them in graph units by default), the graph fitted to the box.
    const sigma = new Sigma(graph, box.current, {
      settings: { allowInvalidContainer: true, itemSizesReference: 'screen', enableCameraRotation: false, labelRenderedSizeThreshold: 4 },
    });
    renderer.current = sigma;
    const el = box.current;
    // Where each node is drawn, for tools that click on the canvas (the browser test does); written after each render.
    const positions = (): void => {
      const at: Record<string, [number, number]> = {};
      graph.forEachNode((id, attrs) => {
        const p = sigma.graphToViewport({ x: attrs.x, y: attrs.y });
        at[id] = [Math.round(p.x), Math.round(p.y)];
      });
      el.dataset.positions = JSON.stringify(at);
    };
    sigma.on('clickNode', ({ node }) => choose.current(node));
    // Two quick clicks on nodes are two choices, not a zoom (sigma reports the second click as a double click).
    sigma.on('doubleClickNode', ({ node, preventSigmaDefault }) => {
      preventSigmaDefault();
      choose.current(node);
    });
    sigma.on('afterRender', positions);
    sigma.on('enterNode', () => {
      el.style.cursor = 'pointer';
    });
    sigma.on('leaveNode', () => {
      el.style.cursor = '';
    });
    return () => {
      sigma.kill();
      renderer.current = null;
    };
  }, [data]);

  // The chosen entity's node is drawn in the highlight colour and a size larger.
  useEffect(() => {
    const graph = renderer.current?.getGraph();
    graph?.forEachNode((id, attrs) => {
      graph.mergeNodeAttributes(id, {
        color: id === chosen ? CHOSEN_COLOUR : attrs.baseColor,
        size: id === chosen ? attrs.baseSize + 4 : attrs.baseSize,
      });
    });
  }, [chosen, data]);

  return (
    <div
      ref={box}
      class="graph"
      role="img"
      aria-label={`Entity graph: ${data.nodes.length} entities, ${data.edges.length} links between them`}
      data-nodes={data.nodes.length}
      data-edges={data.edges.length}
    />
  );
}

export function EntitiesScreen({ client, bank: initial }: { client: CairnClient; bank: string | null }) {
  const [error, setError] = useState<string | null>(null);
  const { banks, bank, setBank } = useBanks(client, initial, setError);
  const [data, setData] = useState<EntityGraph | null>(null);
  const [chosen, setChosen] = useState<string | null>(null);
  const [detail, setDetail] = useState<{ facts: Fact[]; observations: Fact[]; total: number } | null>(null);
  const latest = useLatest();

  useEffect(() => {
    if (!bank) return;
    unwrap(client.raw.GET('/v1/banks/{bank}/entities/graph', { params: { path: { bank }, query: { limit: NODES } } }))
      .then(setData)
      .catch((e: unknown) => setError(messageOf(e)));
  }, [bank]);

  const choose = async (id: string): Promise<void> => {
    setChosen(id);
    setDetail(null);
    setError(null);
    const current = latest();
    try {
      const path = { bank };
      const [facts, observations] = await Promise.all([
        unwrap(client.raw.GET('/v1/banks/{bank}/facts', { params: { path, query: { entityId: id, limit: 200 } } })),
        unwrap(client.raw.GET('/v1/banks/{bank}/facts', { params: { path, query: { entityId: id, kind: 'observation', limit: 50 } } })),
      ]);
      const own = facts.facts.filter((f) => f.kind !== 'observation');
      if (!current()) return; // another entity was chosen meanwhile
      setDetail({ facts: own, observations: observations.facts, total: facts.total - observations.total });
    } catch (e) {
      setError(messageOf(e));
    }
  };

  const entity = data?.nodes.find((n) => n.id === chosen) ?? null;
  return (
    <section aria-labelledby="entities-title">
      <h1 id="entities-title">Entity graph</h1>
      <form class="query" onSubmit={(e) => e.preventDefault()}>
        <BankPicker id="entities-bank" banks={banks} bank={bank} onChange={setBank} />
      </form>
      <ErrorLine error={error} />
      {data === null ? (
        !error && <p class="loading">Loading entities…</p>
      ) : data.nodes.length === 0 ? (
        <p class="empty">No entities yet: retain facts that name people, places or things.</p>
      ) : (
        <>
          <p class="sub">
            The {data.nodes.length} most-mentioned entities; a line joins two that facts name together, thicker for more facts. Drag to
            move, scroll to zoom, click an entity to list its facts.
          </p>
          <div class="graph-layout">
            <GraphView data={data} chosen={chosen} onChoose={(id) => void choose(id)} />
            <nav aria-label="Entities" class="entity-list">
              <ul>
                {data.nodes.map((n) => (
                  <li key={n.id}>
                    <button
                      type="button"
                      class={n.id === chosen ? 'link chosen' : 'link'}
                      data-entity={n.id}
                      aria-pressed={n.id === chosen}
                      onClick={() => void choose(n.id)}
                    >
                      <span class="swatch" style={{ background: colourOf(n.type) }} aria-hidden="true" />
                      {n.name} <span class="sub">{n.mentionCount}</span>
                    </button>
                  </li>
                ))}
              </ul>
            </nav>
          </div>
          {entity && (
            <section class="panel" aria-label="The chosen entity">
              <h2>{entity.name}</h2>
              <p class="sub">
                {entity.type ?? 'untyped'} · {entity.mentionCount} mention(s) · first seen {entity.firstSeen.slice(0, 10)} · last seen{' '}
                {entity.lastSeen.slice(0, 10)}
                {entity.aliases.length > 0 && ` · also called ${entity.aliases.join(', ')}`}
              </p>
              {detail === null ? (
                !error && <p class="loading">Loading its facts…</p>
              ) : (
                <div class="panels">
                  <section aria-labelledby="entity-facts">
                    <h3 id="entity-facts">Facts ({detail.total})</h3>
                    <ul class="items">
                      {detail.facts.map((f) => (
                        <li data-fact={f.id}>
                          {f.text}
                          <div class="sub">
                            {f.kind} · said {f.mentionedAt.slice(0, 10)}
                          </div>
                        </li>
                      ))}
                    </ul>
                  </section>
                  <section aria-labelledby="entity-observations">
                    <h3 id="entity-observations">Observations ({detail.observations.length})</h3>
                    {detail.observations.length === 0 ? (
                      <p class="empty">None about this entity yet.</p>
                    ) : (
                      <ul class="items">
                        {detail.observations.map((o) => (
                          <li data-observation={o.id}>
                            <a href={`#/observations/${encodeURIComponent(bank)}/${encodeURIComponent(o.id)}`}>{o.text}</a>
                            <div class="sub">updated {o.updatedAt.slice(0, 10)}</div>
                          </li>
                        ))}
                      </ul>
                    )}
                  </section>
                </div>
              )}
            </section>
          )}
        </>
      )}
    </section>
  );
}
