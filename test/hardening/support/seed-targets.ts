import { freshWorkspace, type Stack } from '../../rest/support/stack.js';
import { SEEDED_UPLOAD_LENGTH, type Targets } from './hostile-http.js';

/**
 * A fresh workspace on `stack` with one route (`GET routePath`), one small
 * text asset, one unfinished resumable upload and one webhook endpoint with a
 * test delivery (at a loopback port nothing listens on), as the fuzzers' targets:
 * real ids, a real file and a valid token.
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
  const upload = await fetch(`${stack.url}/v1/uploads`, {
    method: 'POST',
    headers: { ...auth, 'tus-resumable': '1.0.0', 'upload-length': String(SEEDED_UPLOAD_LENGTH) },
  });
  if (route.status !== 201 || asset.status !== 201 || upload.status !== 201)
    throw new Error(`seeding failed: route ${route.status}, asset ${asset.status}, upload ${upload.status}`);
  const webhook = await fetch(`${stack.url}/v1/webhooks`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ url: 'http://127.0.0.1:9/seed', events: ['route.deleted'] }),
  });
  if (webhook.status !== 201) throw new Error(`seeding failed: webhook ${webhook.status}`);
  const { id: webhookId } = (await webhook.json()) as { id: string };
  const delivery = await fetch(`${stack.url}/v1/webhooks/${webhookId}:test`, { method: 'POST', headers: auth });
  if (delivery.status !== 202) throw new Error(`seeding failed: test delivery ${delivery.status}`);
  const { id: deliveryId } = (await delivery.json()) as { id: string };
  const location = upload.headers.get('location')!;
  const { id: routeId } = (await route.json()) as { id: string };
  const { id: assetId, url } = (await asset.json()) as { id: string; url: string };
  return {
    authorization: auth.authorization!,
    routeId,
    assetId,
    filePath: new URL(url).pathname,
    uploadId: location.slice(location.lastIndexOf('/') + 1),
    webhookId,
    deliveryId,
  };
}
