// One listing of the workspace's assets for one set of filters: the pages
// read so far (newest first), read further with the API's cursor as the list
// scrolls. A new filter makes a new listing and aborts the old one's request.
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

  constructor(
    readonly filters: ListingFilters,
    viewSignal: AbortSignal,
  ) {
    this.api = createApi(AbortSignal.any([viewSignal, this.#controller.signal]));
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
    try {
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
      const fresh = page.assets.filter((asset) => this.matches(asset) && !known.has(asset.id));
      this.items.value = [...this.items.value, ...fresh];
      this.scanned.value += page.assets.length;
      this.#pageToken = page.nextPageToken;
      this.done.value = page.nextPageToken === '';
    } catch (error) {
      const text = errorText(error, 'Listing assets');
      if (text !== undefined) {
        this.error.value = text;
        this.done.value = true;
        announceError(text);
      }
    } finally {
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
    this.items.value = [asset, ...this.items.value.filter((item) => item.id !== asset.id)];
  }

  /** An edited asset takes its old place, or leaves when it no longer matches. */
  update(asset: Asset): void {
    this.items.value = this.matches(asset)
      ? this.items.value.map((item) => (item.id === asset.id ? asset : item))
      : this.items.value.filter((item) => item.id !== asset.id);
  }

  remove(ids: Iterable<string>): void {
    const gone = new Set(ids);
    this.items.value = this.items.value.filter((item) => !gone.has(item.id));
  }

  close(): void {
    this.#controller.abort();
  }
}
