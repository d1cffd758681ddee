// Run in the installed project as `node round-trip.mjs <protocol> <baseUrl> <token>`:
// creates a route and uploads, reads and replaces a file through @switchyard/client,
// then uploads it again resumably.
export const CLIENT_ROUND_TRIP = `import { readFile } from 'node:fs/promises';
import { createSwitchyardClient, resumableUpload } from '@switchyard/client';

const [protocol, baseUrl, token] = process.argv.slice(2);
const client = createSwitchyardClient({ baseUrl, protocol, token });
try {
  const route = await client.routes.createRoute({ method: 'GET', path: \`/\${protocol}/users/:id\`, middleware: ['auth'], handler: 'getUser' });
  console.log(protocol, 'route', route.id, route.method, route.path);
  const asset = await client.uploadAsset('logo.png', { label: 'logo' });
  const replaced = await client.replaceAsset(asset.id, new Uint8Array(await readFile('logo.png')));
  const read = await client.assets.getAsset({ id: asset.id });
  console.log(protocol, 'asset', read.id, read.type, replaced.id === asset.id ? 'kept its id on replace' : 'CHANGED ITS ID');
  const resumable = await resumableUpload(client, 'logo.png', { label: 'resumable', chunkBytes: 1000 });
  console.log(protocol, 'resumable', resumable.id, resumable.type, resumable.sha256 === read.sha256 ? 'same sha256' : 'OTHER SHA256');
} finally {
  client.close();
}
`;
