// History routing under the console's base (/console/): /console/assets,
// /console/routes (and its section /console/routes/history), /console/trash, /console/webhooks, /console/workspace. The gateway
// answers index.html for any path under /console/, so these urls work as deep links and on reload.
import { computed, signal } from '@preact/signals';

export type ViewName = 'assets' | 'routes' | 'trash' | 'webhooks' | 'workspace';
const VIEWS: readonly ViewName[] = ['assets', 'routes', 'trash', 'webhooks', 'workspace'];

const BASE = import.meta.env.BASE_URL.replace(/\/$/, '');

export const location$ = signal({ path: window.location.pathname, search: window.location.search });

const segments = computed(() => {
  const rest = location$.value.path.startsWith(BASE) ? location$.value.path.slice(BASE.length) : location$.value.path;
  return rest.split('/').filter(Boolean);
});

export const currentView = computed<ViewName>(() => {
  const first = segments.value[0];
  return VIEWS.includes(first as ViewName) ? (first as ViewName) : 'assets';
});

/** The part of the current view shown (the segment after the view's: "history" in /console/routes/history), "" for its first. */
export const currentSection = computed(() => segments.value[1] ?? '');

export const searchParams = computed(() => new URLSearchParams(location$.value.search));

export function hrefOf(view: ViewName, params?: URLSearchParams, section = ''): string {
  const query = params && params.size > 0 ? `?${params}` : '';
  return `${BASE}/${view}${section ? `/${section}` : ''}${query}`;
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
  navigate(hrefOf(currentView.value, params, currentSection.value), true);
}

window.addEventListener('popstate', () => {
  location$.value = { path: window.location.pathname, search: window.location.search };
});
