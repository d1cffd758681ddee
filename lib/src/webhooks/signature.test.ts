import { createHmac } from 'node:crypto';
import test from 'ava';
import { signWebhook } from './signature.js';
import { newWebhookSecret, webhookSecretKey } from './webhook-secret.js';

// The Standard Webhooks specification's published test vector: matching it is what lets any of its libraries verify us.
const VECTOR = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: 1614265330,
  body: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};

test('signing reproduces the Standard Webhooks reference signature and headers', (t) => {
  t.deepEqual(signWebhook(VECTOR.id, VECTOR.timestamp, VECTOR.body, [VECTOR.secret]), {
    'webhook-id': VECTOR.id,
    'webhook-timestamp': '1614265330',
    'webhook-signature': VECTOR.signature,
  });
});

test('during a rotation both secrets sign, the newest first, space separated', (t) => {
  const fresh = newWebhookSecret();
  const header = signWebhook(VECTOR.id, VECTOR.timestamp, VECTOR.body, [fresh, VECTOR.secret])['webhook-signature'];
  const [first, second, extra] = header.split(' ');
  t.is(extra, undefined);
  t.is(second, VECTOR.signature);
  const expected = createHmac('sha256', Buffer.from(fresh.slice('whsec_'.length), 'base64'))
    .update(`${VECTOR.id}.${VECTOR.timestamp}.${VECTOR.body}`)
    .digest('base64');
  t.is(first, `v1,${expected}`);
});

test('new secrets are whsec_ and 24 random bytes in base64, never the same', (t) => {
  const secrets = Array.from({ length: 100 }, newWebhookSecret);
  t.is(new Set(secrets).size, 100);
  for (const secret of secrets) {
    t.regex(secret, /^whsec_[A-Za-z0-9+/]{32}$/);
    t.is(webhookSecretKey(secret).length, 24);
  }
});
