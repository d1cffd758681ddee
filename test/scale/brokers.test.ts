// The private brokers the scale tests stand on: they start, answer, stop and come back on the same port.
import test from 'ava';
import { Redis } from 'ioredis';
import { connect } from 'nats';
import { startNats, startRedis } from '../support/brokers.js';

test('a private redis-server answers, goes away on stop and comes back on the same port', async (t) => {
  const redis = await startRedis();
  t.teardown(() => redis.close());
  const client = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  await client.connect();
  t.is(await client.ping(), 'PONG');
  client.disconnect();
  await redis.stop();
  const refused = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  refused.on('error', () => {}); // the refusal is what this step expects
  await t.throwsAsync(() => refused.connect());
  refused.disconnect();
  await redis.start();
  const again = new Redis(redis.url, { lazyConnect: true });
  await again.connect();
  t.is(await again.ping(), 'PONG');
  again.disconnect();
});

test('a private nats-server carries a message and comes back on the same port', async (t) => {
  const nats = await startNats();
  t.teardown(() => nats.close());
  const connection = await connect({ servers: nats.url });
  const subscription = connection.subscribe('switchyard.test');
  connection.publish('switchyard.test', new TextEncoder().encode('hello'));
  for await (const message of subscription) {
    t.is(new TextDecoder().decode(message.data), 'hello');
    break;
  }
  await connection.close();
  await nats.stop();
  await t.throwsAsync(() => connect({ servers: nats.url, reconnect: false, timeout: 500 }));
  await nats.start();
  const again = await connect({ servers: nats.url });
  t.truthy(again.info);
  await again.close();
});
