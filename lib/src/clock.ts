/** Where the library gets the time, so tests can fix it. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = Object.freeze({ now: () => new Date() });
