/**
 * A realistic route set for the matching benchmark: 1,000 routes of a REST API
 * (static, parameter and trailing-wildcard routes over shared prefixes) and one
 * concrete request per route plus some that match nothing.
 */
export interface RouteSpec {
  readonly method: string;
  readonly path: string;
}

export interface Probe {
  readonly method: string;
  readonly path: string;
  /** The pattern that must match, or undefined for a miss. */
  readonly expected: string | undefined;
  readonly params: Readonly<Record<string, string>>;
}

const WORDS = [
  'users',
  'orders',
  'invoices',
  'products',
  'carts',
  'payments',
  'shipments',
  'reviews',
  'coupons',
  'teams',
  'projects',
  'issues',
  'comments',
  'labels',
  'webhooks',
  'tokens',
  'sessions',
  'reports',
  'exports',
  'imports',
  'channels',
  'messages',
  'files',
  'folders',
  'events',
];
const PER_RESOURCE: readonly RouteSpec[] = [
  { method: 'GET', path: '' },
  { method: 'POST', path: '' },
  { method: 'GET', path: '/search' },
  { method: 'GET', path: '/:id' },
  { method: 'PUT', path: '/:id' },
  { method: 'DELETE', path: '/:id' },
  { method: 'GET', path: '/:id/comments' },
  { method: 'GET', path: '/:id/comments/:commentId' },
  { method: 'GET', path: '/:id/files/*' },
];

export function buildRouteSet(): { routes: RouteSpec[]; probes: Probe[] } {
  const routes: RouteSpec[] = [];
  for (let version = 1; version <= 4; version++) {
    for (const word of WORDS) {
      for (const r of PER_RESOURCE) routes.push({ method: r.method, path: `/api/v${version}/${word}${r.path}` });
    }
  }
  for (let i = 0; i < 50; i++) routes.push({ method: 'GET', path: `/static/area${i}/*` }, { method: 'GET', path: `/pages/page-${i}` });

  const probes: Probe[] = routes.map((route, i) => concrete(route, i));
  for (let i = 0; i < 100; i++) {
    const word = WORDS[i % WORDS.length]!;
    probes.push({ method: 'GET', path: i % 2 ? `/api/v9/${word}/${i}` : `/api/v1/${word}/${i}/unknown`, expected: undefined, params: {} });
  }
  return { routes, probes };
}

/** A concrete request path for a pattern, with the params a matcher must extract. */
function concrete(route: RouteSpec, i: number): Probe {
  const params: Record<string, string> = {};
  const path = route.path
    .split('/')
    .map((segment) => {
      if (segment.startsWith(':')) return (params[segment.slice(1)] = `${segment.slice(1, 2)}${i}`);
      if (segment === '*') return (params['*'] = `img/${i}/photo.png`);
      return segment;
    })
    .join('/');
  return { method: route.method, path, expected: route.path, params };
}
