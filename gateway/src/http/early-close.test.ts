import test from 'ava';
import { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { LINGER_BYTES, lingerAfterEarlyResponse } from './early-close.js';

/** A request whose body is still coming and a response about to finish, as Node's server hands them over. */
function exchange() {
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
    linger: (ms: number) => lingerAfterEarlyResponse(req as unknown as IncomingMessage, res as unknown as ServerResponse, ms),
  };
}

test('an unread body is cut at the linger timeout, even once Node has let go of the request socket (no crash)', async (t) => {
  const { socket, req, res, linger } = exchange();
  linger(20);
  res.emit('finish');
  // Node sets req.socket to null in some paths once the response is out; the timer used to read it then.
  req.socket = null;
  await sleep(60);
  t.true(socket.destroyed);
});

test('a body that ends within the linger time keeps its connection', async (t) => {
  const { socket, req, res, linger } = exchange();
  linger(20);
  res.emit('finish');
  req.emit('data', Buffer.alloc(10));
  req.emit('end');
  await sleep(60);
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
