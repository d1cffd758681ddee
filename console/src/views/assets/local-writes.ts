// The assets this tab is writing, or has just written: the watch reports
// those changes too (sometimes before the write's own answer arrives), and
// they are news to nobody here: neither announced as made elsewhere nor
// shown as "deleted elsewhere" in the open detail panel.
import type { Api } from '../../lib/api.js';

/** How long after its answer a write's change may still come from the watch (it reports within a second). */
const GRACE_MS = 3000;

export class LocalWrites {
  readonly #inFlight = new Map<string, number>();
  readonly #deleting = new Map<string, number>();
  readonly #ended = new Map<string, number>();

  constructor(private readonly now: () => number = () => performance.now()) {}

  async around<T>(ids: readonly string[], write: () => Promise<T>, kind: 'edit' | 'delete' = 'edit'): Promise<T> {
    const counts = kind === 'delete' ? [this.#inFlight, this.#deleting] : [this.#inFlight];
    for (const id of ids) for (const count of counts) count.set(id, (count.get(id) ?? 0) + 1);
    try {
      return await write();
    } finally {
      const at = this.now();
      for (const [id, ended] of this.#ended) if (at - ended > GRACE_MS) this.#ended.delete(id);
      for (const id of ids) {
        for (const count of counts) {
          const left = (count.get(id) ?? 1) - 1;
          if (left > 0) count.set(id, left);
          else count.delete(id);
        }
        this.#ended.set(id, at);
      }
    }
  }

  /** Whether a change to this asset may be this tab's own. */
  has(id: string): boolean {
    const ended = this.#ended.get(id);
    return this.#inFlight.has(id) || (ended !== undefined && this.now() - ended <= GRACE_MS);
  }

  /** Whether this tab is deleting the asset right now. */
  deleting(id: string): boolean {
    return this.#deleting.has(id);
  }
}

/** The view's client, its asset writes recorded in `writes`. */
export function trackWrites(api: Api, writes: LocalWrites): Api {
  return {
    ...api,
    updateAsset: (id, changes) => writes.around([id], () => api.updateAsset(id, changes)),
    replaceAsset: (id, file, options) => writes.around([id], () => api.replaceAsset(id, file, options)),
    deleteAsset: (id) => writes.around([id], () => api.deleteAsset(id), 'delete'),
    batchDeleteAssets: (ids) => writes.around(ids, () => api.batchDeleteAssets(ids), 'delete'),
    revokeSignedUrls: (id) => writes.around([id], () => api.revokeSignedUrls(id)),
  };
}
