import test from 'ava';
import { createClock } from '@sinonjs/fake-timers';
import { timeSourceOf } from '@switchyard/core/testing';
import { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { LINGER_BYTES, lingerAfterEarlyResponse } from './early-close.js';

/** A request whose body is still coming and a response about to finish, as Node's server hands them over; the linger runs on `fake` time. */
function exchange() {
  const fake = createClock(0);
  const socket = Object.assign(new EventEmitter(), {
    destroyed: false,
    writableEnded: false,
    destroy: () => void (socket.destroyed = true),
  });
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- not so: widened, the test sets it to null
  const req = Object.assign(new EventEmitter(), { complete: false, socket: socket as unknown, resume: () => req });
  const res = Object.assign(new EventEmitter(), { headersSent: false });
  return {
    socket,
    req,
    res,
    fake,
    linger: (ms: number) =>
      lingerAfterEarlyResponse(req as unknown as IncomingMessage, res as unknown as ServerResponse, ms, timeSourceOf(fake)),
  };
}

test('an unread body is cut at the linger timeout, not a ms before, even once Node has let go of the request socket (no crash)', (t) => {
  const { socket, req, res, fake, linger } = exchange();
  linger(20);
  res.emit('finish');
  // Node sets req.socket to null in some paths once the response is out; the timer used to read it then.
  req.socket = null;
  fake.tick(19);
  t.false(socket.destroyed, 'kept at 19 ms');
  fake.tick(1);
  t.true(socket.destroyed, 'cut at 20 ms');
});

test('a body that ends within the linger time keeps its connection', (t) => {
  const { socket, req, res, fake, linger } = exchange();
  linger(20);
  res.emit('finish');
  fake.tick(19);
  req.emit('data', Buffer.alloc(10));
  req.emit('end');
  t.is(fake.countTimers(), 0, 'the linger timer is cleared');
  fake.tick(60_000);
  t.false(socket.destroyed);
});

test('more than LINGER_BYTES of unread body is cut at once', (t) => {
  const { socket, req, res, linger } = exchange();
  linger(10_000);
  res.emit('finish');
  req.emit('data', Buffer.alloc(LINGER_BYTES + 1));
  t.true(socket.destroyed);
});

test('a request whose socket Node already let go of (the client is gone) is left alone', (t) => {
  const { req, res, linger } = exchange();
  req.socket = null;
  t.notThrows(() => {
    linger(20);
    res.emit('finish');
  });
});
