/**
 * The refusals of `RouteStore.applyRevision` that every store words alike,
 * so callers (and the transports after them) see one error whatever the store.
 */
import { SwitchyardError } from '../errors.js';

export const revisionRefusals = Object.freeze({
  /** The workspace moved on since the caller read it: the compare-and-swap failed. The detail names the current revision. */
  stale(expected: number, current: number): SwitchyardError {
    return new SwitchyardError(
      'aborted',
      `the route table is at revision ${current}, not ${expected}: it changed since it was read; plan again against revision ${current}`,
      [{ field: 'expectedRevision', reason: `the route table is at revision ${current}` }],
    );
  },

  /** A route the write was planned against is gone (or named twice): the plan belongs to another table. */
  missing(id: string): SwitchyardError {
    return new SwitchyardError('aborted', `route ${id} is not in the table as planned: it changed since it was read`, [
      { field: 'id', reason: `route ${id} is not in the table, or is named twice` },
    ]);
  },
});
