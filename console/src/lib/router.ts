// History routing under the console's base (/console/): /console/assets,
// /console/routes, /console/workspace. The gateway answers index.html for
// any path under /console/, so these urls work as deep links and on reload.
import { computed, signal } from '@preact/signals';

export type ViewName = 'assets' | 'routes' | 'workspace';
const VIEWS: readonly ViewName[] = ['assets', 'routes', 'workspace'];

const BASE = import.meta.env.BASE_URL.replace(/\/$/, '');

export const location$ = signal({ path: window.location.pathname, search: window.location.search });

export const currentView = computed<ViewName>(() => {
  const rest = location$.value.path.startsWith(BASE) ? location$.value.path.slice(BASE.length) : location$.value.path;
  const first = rest.split('/').filter(Boolean)[0];
  return VIEWS.includes(first as ViewName) ? (first as ViewName) : 'assets';
});

export const searchParams = computed(() => new URLSearchParams(location$.value.search));

export function hrefOf(view: ViewName, params?: URLSearchParams): string {
  const query = params && params.size > 0 ? `?${params}` : '';
  return `${BASE}/${view}${query}`;
}

export function navigate(href: string, replace = false): void {
  const url = new URL(href, window.location.href);
  if (url.pathname + url.search === window.location.pathname + window.location.search) return;
  if (replace) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  location$.value = { path: url.pathname, search: url.search };
}

/** Keeps the current view's query (filters, the open asset) in the url without a history entry per keystroke. */
export function setSearchParams(params: URLSearchParams): void {
  navigate(hrefOf(currentView.value, params), true);
}

window.addEventListener('popstate', () => {
  location$.value = { path: window.location.pathname, search: window.location.search };
});
