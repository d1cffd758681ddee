/**
 * A fixed number of slots, taken without waiting: `take()` returns a release
 * function, or undefined when all are taken. Releasing twice frees one slot.
 * Refusing at once (rather than queueing) keeps memory flat under a burst and
 * tells the client to come back, where a queue would hold its body meanwhile.
 */
export class Slots {
  #taken = 0;

  constructor(
    readonly size: number,
    /** Told of every refusal (metrics). */
    readonly onRefused: () => void = () => {},
  ) {}

  get taken(): number {
    return this.#taken;
  }

  take(): (() => void) | undefined {
    if (this.#taken >= this.size) {
      this.onRefused();
      return undefined;
    }
    this.#taken += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#taken -= 1;
    };
  }
}
