// Typed events: a module says what happened (a retain stored facts, a deletion removed some) and others listen,
// without the one that says it importing them. Listeners run one after another in the order they subscribed, and
// emit waits for each (a listener that repairs after a deletion finishes before the deletion's answer goes out).

type Listener<A extends unknown[]> = (...args: A) => void | Promise<void>;

export class Events<M extends { [K in keyof M]: unknown[] }> {
  private readonly listeners: { [K in keyof M]?: Array<Listener<M[K]>> } = {};

  /** Subscribes; returns the function that unsubscribes. */
  on<K extends keyof M>(name: K, listener: Listener<M[K]>): () => void {
    const list = (this.listeners[name] ??= []);
    list.push(listener);
    return () => {
      const at = list.indexOf(listener);
      if (at >= 0) list.splice(at, 1);
    };
  }

  /** Calls the listeners of `name` in order, waiting for each; the first that throws stops the rest and rejects. */
  async emit<K extends keyof M>(name: K, ...args: M[K]): Promise<void> {
    for (const listener of [...(this.listeners[name] ?? [])]) await listener(...args);
  }
}
