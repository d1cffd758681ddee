import test from 'ava';
import { Refusal } from '@switchyard/runtime';
import { isSingleAddress, parseServiceTargets, resolveTargets, type LookupAll, type ServiceTarget } from './address-list.js';

function targets(raw: string): readonly ServiceTarget[] {
  const parsed = parseServiceTargets(raw);
  if (parsed instanceof Refusal) throw new Error(parsed.reason);
  return parsed;
}

const reason = (raw: string): string => {
  const parsed = parseServiceTargets(raw);
  return parsed instanceof Refusal ? parsed.reason : 'accepted';
};

test('entries are origins: IP literals need no lookup, names do; IPv6 loses its brackets', (t) => {
  t.deepEqual(targets('http://10.0.0.5:50051, https://svc.ns.svc:443 ,http://[::1]:7'), [
    { origin: 'http://10.0.0.5:50051', protocol: 'http:', hostname: '10.0.0.5', port: 50051, literal: true },
    { origin: 'https://svc.ns.svc', protocol: 'https:', hostname: 'svc.ns.svc', port: 443, literal: false },
    { origin: 'http://[::1]:7', protocol: 'http:', hostname: '::1', port: 7, literal: true },
  ]);
  t.is(targets('http://svc')[0]!.port, 80);
});

test('one IP address is the single-connection case; a name or several entries are balanced', (t) => {
  t.true(isSingleAddress(targets('http://127.0.0.1:50051')));
  t.false(isSingleAddress(targets('http://localhost:50051')));
  t.false(isSingleAddress(targets('http://127.0.0.1:1,http://127.0.0.1:2')));
});

test('bad entries are refused by position, with the reason', (t) => {
  t.is(reason(''), 'lists no address');
  t.is(reason('http://a:1,'), 'entry 2 is empty (a stray comma?)');
  t.is(reason('http://a:1,b:2'), 'entry 2 ("b:2") is not an http or https URL');
  t.is(reason('grpc://a:1'), 'is not an http or https URL');
  t.regex(reason('http://a:1/v1'), /^must be just scheme, host and port/);
  t.is(reason('http://a:1,http://A:1'), 'entry 2 ("http://A:1") is listed twice');
  t.is(reason('http://user:pw@a:1'), 'must carry no credentials');
});

test('resolution: every address of every entry once, in order, with the port of its entry', async (t) => {
  const names: Record<string, string[]> = { svc: ['10.0.0.1', '10.0.0.2'], other: ['10.0.0.2', 'fd00::3'] };
  const asked: string[] = [];
  const lookup: LookupAll = async (host) => {
    asked.push(host);
    return names[host] ?? [];
  };
  const resolved = await resolveTargets(targets('http://svc:50051,http://10.0.0.9:1,http://other:50051'), lookup);
  t.deepEqual(
    resolved.map((address) => address.url),
    ['http://10.0.0.1:50051', 'http://10.0.0.2:50051', 'http://10.0.0.9:1', 'http://[fd00::3]:50051'],
  );
  t.deepEqual(asked, ['svc', 'other'], 'literals are not looked up');
});

test('TLS keeps the configured name for the certificate check; plain HTTP and literals need none', async (t) => {
  const lookup: LookupAll = async () => ['10.0.0.1'];
  t.deepEqual(await resolveTargets(targets('https://svc.example:443'), lookup), [
    { url: 'https://10.0.0.1:443', servername: 'svc.example' },
  ]);
  t.deepEqual(await resolveTargets(targets('http://svc.example:80'), lookup), [{ url: 'http://10.0.0.1:80', servername: undefined }]);
  t.deepEqual(await resolveTargets(targets('https://10.0.0.7:443'), lookup), [{ url: 'https://10.0.0.7:443', servername: undefined }]);
});

test('a name that fails contributes nothing while others resolve; when nothing resolves, the lookup error is thrown', async (t) => {
  const failing = Object.assign(new Error('getaddrinfo ENOTFOUND gone'), { code: 'ENOTFOUND' });
  const lookup: LookupAll = async (host) => {
    if (host === 'gone') throw failing;
    return ['10.0.0.1'];
  };
  t.deepEqual(
    (await resolveTargets(targets('http://gone:1,http://svc:1'), lookup)).map((address) => address.url),
    ['http://10.0.0.1:1'],
  );
  t.is(await t.throwsAsync(resolveTargets(targets('http://gone:1'), lookup)), failing);
});

test('the real resolver finds localhost on loopback', async (t) => {
  const { systemLookup } = await import('./address-resolver.js');
  const resolved = await resolveTargets(targets('http://localhost:50051'), systemLookup);
  t.true(resolved.length >= 1);
  for (const address of resolved) t.regex(address.url, /^http:\/\/(127\.\d+\.\d+\.\d+|\[::1\]):50051$/);
});
