// The one order of a bank's sessions, whatever store holds them: by the earliest timestamp of their items (sessions
// without one last), then by the one retained first (as the store can tell), then by id; ordinals count from 1.
export function numberSessions<T extends { id: string; start: string | null }>(
  rows: T[],
  retainedFirst: (a: T, b: T) => number,
): Array<T & { ordinal: number }> {
  return [...rows]
    .sort((a, b) => {
      if (a.start !== b.start) return a.start === null ? 1 : b.start === null ? -1 : a.start < b.start ? -1 : 1;
      return retainedFirst(a, b) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
    })
    .map((r, i) => ({ ...r, ordinal: i + 1 }));
}
