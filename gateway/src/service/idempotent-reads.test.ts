import test from 'ava';
import { AssetService, FileService, Health, KeyService, RouteService, UploadService, WebhookService } from '@switchyard/proto';
import { IDEMPOTENT_READS, isIdempotentRead } from './idempotent-reads.js';

const SERVICES = [AssetService, FileService, RouteService, UploadService, KeyService, WebhookService, Health];
const methods = SERVICES.flatMap((service) => service.methods);

test('every name listed is a unary method of the services the gateway calls', (t) => {
  const unary = new Set(
    methods.filter((method) => method.methodKind === 'unary').map((method) => `${method.parent.typeName}/${method.name}`),
  );
  for (const name of IDEMPOTENT_READS) t.true(unary.has(name), name);
});

test('the unary Get, List, Match and Check calls are the reads, and nothing else is', (t) => {
  const reads = methods.filter((method) => method.methodKind === 'unary' && /^(Get|List|Match|Check)/.test(method.name));
  t.deepEqual(reads.map((method) => `${method.parent.typeName}/${method.name}`).sort(), [...IDEMPOTENT_READS].sort());
  for (const method of methods) t.is(isIdempotentRead(method), reads.includes(method), method.name);
});

test('no streaming call counts as a read to retry, the file reads and watches included', (t) => {
  t.false(isIdempotentRead(FileService.method.readFile));
  t.false(isIdempotentRead(RouteService.method.watchRoutes));
  t.false(isIdempotentRead(AssetService.method.watchAssets));
  t.false(isIdempotentRead(Health.method.watch));
});
