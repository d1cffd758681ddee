import { freshWorkspace, type Stack } from '../../rest/support/stack.js';
import type { Targets } from './hostile-http.js';

/**
 * A fresh workspace on `stack` with one route (`GET routePath`) and one small
 * text asset, as the fuzzers' targets: real ids, a real file and a valid token.
 */
export async function seedTargets(stack: Stack, workspacePrefix: string, routePath: string): Promise<Targets> {
  const auth = await stack.auth(freshWorkspace(workspacePrefix));
  const route = await fetch(`${stack.url}/v1/routing`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ method: 'GET', path: routePath, handler: 'seed' }),
  });
  const form = new FormData();
  form.append('file', new Blob(['seed file\n'], { type: 'text/plain' }), 'seed.txt');
  const asset = await fetch(`${stack.url}/v1/assets/upload`, { method: 'POST', headers: auth, body: form });
  if (route.status !== 201 || asset.status !== 201) throw new Error(`seeding failed: route ${route.status}, asset ${asset.status}`);
  const { id: routeId } = (await route.json()) as { id: string };
  const { id: assetId, url } = (await asset.json()) as { id: string; url: string };
  return { authorization: auth.authorization!, routeId, assetId, filePath: new URL(url).pathname };
}
