/**
 * Tells this process's relay that deliveries became due now (a committed
 * change's outbox rows, a test, a resend, a recovery), so it sends them at
 * once rather than at its next poll. Other instances' writes still reach
 * their relays by polling. A listener's error is its own: the write that
 * notified has already committed.
 */
export class DueSignal {
  readonly #listeners = new Set<() => void>();

  subscribe(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }

  notify(): void {
    for (const listener of [...this.#listeners]) {
      try {
        listener();
      } catch {
        // The relay only schedules a timer; nothing here may fail the committed write.
      }
    }
  }
}
