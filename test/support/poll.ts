// Waiting for a condition in tests: poll with a deadline instead of sleeping a fixed time.

/** Reads until `ok` holds for what was read (returned), or fails naming `what` after `ms`. */
export async function until<T>(what: string, read: () => T | Promise<T>, ok: (value: T) => boolean = Boolean, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (let wait = 5; ; wait = Math.min(wait * 2, 100)) {
    const value = await read();
    if (ok(value)) return value;
    if (Date.now() > deadline)
      throw new Error(`timed out after ${ms} ms waiting for ${what} (last: ${JSON.stringify(value)?.slice(0, 400)})`);
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
}
