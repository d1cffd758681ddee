import test from 'ava';
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { relayEvents, SSE_BUFFER_BYTES } from './sse.js';

/** The largest socket buffer Linux grows to (the third figure of /proc/sys/net/ipv4/tcp_wmem or tcp_rmem). */
async function socketBufferMax(name: 'tcp_wmem' | 'tcp_rmem'): Promise<number> {
  const figures = (await readFile(`/proc/sys/net/ipv4/${name}`, 'utf8')).trim().split(/\s+/);
  return Number(figures[2]);
}

const EVENT_BYTES = 64 * 1024;
const OFFERED = 2_000; // 128 MiB in all: far beyond the buffer and any loopback socket's

/** A server relaying up to OFFERED events of EVENT_BYTES each to every GET; `pulled` counts what the relay took. */
async function relayServer(): Promise<{ server: Server; port: number; pulled: () => number; finished: Promise<void> }> {
  let pulled = 0;
  let finish!: () => void;
  const finished = new Promise<void>((resolve) => (finish = resolve));
  async function* events() {
    for (let i = 0; i < OFFERED; i++) {
      pulled++;
      yield i;
    }
  }
  const server = createServer((_req, res) => {
    const payload = 'x'.repeat(EVENT_BYTES);
    void relayEvents(events(), (i) => `event: e\ndata: ${i} ${payload}\n\n`, res, new AbortController().signal).then(finish);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, port: (server.address() as AddressInfo).port, pulled: () => pulled, finished };
}

test('a client that stops reading holds the relay back: it buffers a bounded amount, then waits, and loses nothing', async (t) => {
  const { server, port, pulled, finished } = await relayServer();
  try {
    const socket = connect(port, '127.0.0.1');
    await once(socket, 'connect');
    socket.write('GET / HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n');
    // Not reading: the relay fills the kernel's buffers and its own, then must wait for the client.
    let before = -1;
    while (pulled() !== before) {
      before = pulled();
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const held = pulled() * EVENT_BYTES;
    t.true(pulled() < OFFERED, `the relay stopped pulling events (it took ${pulled()} of ${OFFERED})`);
    t.true(held > SSE_BUFFER_BYTES, 'it took more than its own buffer: the kernel holds some too');
    // The rest sits in the kernel's socket buffers, which grow to at most tcp_wmem's and tcp_rmem's largest.
    const kernel = (await socketBufferMax('tcp_wmem')) + (await socketBufferMax('tcp_rmem'));
    t.true(held <= SSE_BUFFER_BYTES + kernel + 2 * EVENT_BYTES, `held ${held} bytes`);
    t.log(`held ${(held / 1048576).toFixed(1)} MiB before waiting`);
    // Reading resumes: every event arrives, in order.
    let text = '';
    let seen = 0;
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      text += chunk;
      let end: number;
      while ((end = text.indexOf('\n\n')) !== -1) {
        const frame = text.slice(0, end);
        text = text.slice(end + 2);
        const match = /^data: (\d+) /m.exec(frame);
        if (match) t.is(Number(match[1]), seen++, 'in order');
      }
    });
    await finished;
    socket.end();
    await once(socket, 'close');
    t.is(seen, OFFERED);
  } finally {
    server.close();
  }
});
