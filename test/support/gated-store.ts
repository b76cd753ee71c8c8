// An embedded store whose item writes wait until `release` is called: a retain in flight that holds its bank's write
// lease and has written nothing yet.
import type { ItemWrite } from '../../src/store/ports.ts';
import { SqliteStore } from '../../src/store/sqlite/store.ts';

export class GatedStore extends SqliteStore {
  release: () => void = () => {};
  private readonly gate: Promise<void> = new Promise((open) => {
    this.release = open;
  });
  /** Set once a write has reached the gate. */
  waiting = false;
  override async writeItem(w: ItemWrite): Promise<void> {
    this.waiting = true;
    await this.gate;
    await super.writeItem(w);
  }
}
