// One listing of the workspace's assets for one set of filters: the pages
// read so far (newest first), read further with the API's cursor as the list
// scrolls, and kept current by the changes the watch reports (`place`). A new
// filter makes a new listing and aborts the old one's request.
import { signal } from '@preact/signals';
import { createApi, errorText, type Api, type Asset } from './api.js';
import { familyOf, filteredInBrowser, typeQueryOf, type TypeFamily } from './asset-types.js';
import { announceError } from './announce.js';

export interface ListingFilters {
  readonly family: TypeFamily | '';
  readonly label: string;
  readonly q: string;
}

export class AssetListing {
  readonly items = signal<readonly Asset[]>([]);
  readonly loading = signal(false);
  readonly done = signal(false);
  readonly error = signal('');
  /** Assets read from the API (more than `items` when the browser filters). */
  readonly scanned = signal(0);
  readonly api: Api;
  readonly #controller = new AbortController();
  #pageToken = '';
  #inFlight: Promise<void> | undefined;
  /** Changes heard while a page was being read: the page may predate them, so they win over it. */
  #meanwhile: Map<string, Asset | null> | undefined;
  readonly #ready: Promise<unknown>;

  /** `ready`: the first page waits for it (the watch listening), so no change falls between the listing and the watch. */
  constructor(
    readonly filters: ListingFilters,
    viewSignal: AbortSignal,
    ready: Promise<unknown> = Promise.resolve(),
  ) {
    this.api = createApi(AbortSignal.any([viewSignal, this.#controller.signal]));
    this.#ready = ready.catch(() => undefined);
  }

  /** Reads the next page, unless one is being read or none is left. */
  loadMore(): Promise<void> {
    if (this.done.value || this.#controller.signal.aborted) return Promise.resolve();
    this.#inFlight ??= this.#readPage().finally(() => (this.#inFlight = undefined));
    return this.#inFlight;
  }

  async #readPage(): Promise<void> {
    this.loading.value = true;
    this.error.value = '';
    const { family, label, q } = this.filters;
    const meanwhile = (this.#meanwhile = new Map<string, Asset | null>());
    try {
      if (this.#pageToken === '') await this.#ready;
      const page = await this.api.listAssets({
        // Browser-filtered families read bigger pages: most of each page may be dropped.
        pageSize: filteredInBrowser(family) ? 500 : 100,
        ...(this.#pageToken ? { pageToken: this.#pageToken } : {}),
        ...(typeQueryOf(family) ? { type: typeQueryOf(family) } : {}),
        ...(label ? { label } : {}),
        ...(q ? { q } : {}),
      });
      if (this.#controller.signal.aborted) return;
      const known = new Set(this.items.value.map((asset) => asset.id));
      const fresh = page.assets.filter((asset) => this.matches(asset) && !known.has(asset.id) && !meanwhile.has(asset.id));
      this.items.value = [...this.items.value, ...fresh];
      this.scanned.value += page.assets.length;
      this.#pageToken = page.nextPageToken;
      this.done.value = page.nextPageToken === '';
      // What changed while the page was on its way goes where it belongs now that the page is in.
      this.#meanwhile = undefined;
      for (const [id, asset] of meanwhile) this.place(id, asset);
    } catch (error) {
      const text = errorText(error, 'Listing assets');
      if (text !== undefined) {
        this.error.value = text;
        this.done.value = true;
        announceError(text);
      }
    } finally {
      this.#meanwhile = undefined;
      this.loading.value = false;
    }
  }

  /** Whether an asset belongs in this listing (for uploads and edits made meanwhile). */
  matches(asset: Asset): boolean {
    const { family, label, q } = this.filters;
    if (family && familyOf(asset.type) !== family) return false;
    if (label && asset.label !== label) return false;
    if (q && !(asset.name ?? '').toLowerCase().startsWith(q.toLowerCase())) return false;
    return true;
  }

  /** A new upload goes on top (newest first), if it belongs here. */
  prepend(asset: Asset): void {
    if (!this.matches(asset)) return;
    if (!this.items.value.some((item) => item.id === asset.id)) this.scanned.value += 1;
    this.items.value = [asset, ...this.items.value.filter((item) => item.id !== asset.id)];
  }

  /** An edited asset takes its old place, or leaves when it no longer matches. */
  update(asset: Asset): void {
    this.place(asset.id, asset);
  }

  remove(ids: Iterable<string>): void {
    for (const id of ids) this.place(id, null);
  }

  /**
   * An asset as it is now (`null`: deleted), wherever it was made: it keeps
   * its place, leaves when gone or no longer matching, and an asset not
   * listed goes where a fresh listing would put it (ids sort newest first)
   * if that is within the pages read; beyond them a later page brings it.
   * Idempotent, so a change heard twice (made here, then reported by the
   * watch) is applied once. Answers whether the list changed, and the asset
   * as it was listed.
   */
  place(id: string, asset: Asset | null): { readonly changed: boolean; readonly was: Asset | undefined } {
    this.#meanwhile?.set(id, asset);
    const items = this.items.value;
    const index = items.findIndex((item) => item.id === id);
    const was = index < 0 ? undefined : items[index];
    if (asset === null || !this.matches(asset)) {
      if (index < 0) return { changed: false, was };
      this.items.value = items.filter((item) => item.id !== id);
      // Gone from the workspace, or (for the server's filters) from what the API would list: no longer read either.
      if (asset === null || !filteredInBrowser(this.filters.family)) this.scanned.value -= 1;
      return { changed: true, was };
    }
    if (was) {
      if (sameAsset(was, asset)) return { changed: false, was };
      this.items.value = items.map((item) => (item.id === id ? asset : item));
      return { changed: true, was };
    }
    const at = items.findIndex((item) => item.id < id);
    if (at < 0 && !this.done.value) return { changed: false, was };
    const next = [...items];
    next.splice(at < 0 ? next.length : at, 0, asset);
    this.items.value = next;
    this.scanned.value += 1;
    return { changed: true, was };
  }

  close(): void {
    this.#controller.abort();
  }
}

/** Field by field: a listed asset and the watch's copy of it come from different answers. */
function sameAsset(a: Asset, b: Asset): boolean {
  const fields = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...fields].every((field) => JSON.stringify(a[field as keyof Asset]) === JSON.stringify(b[field as keyof Asset]));
}
