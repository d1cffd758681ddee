import { createConnection } from 'mysql2/promise';

/** The machine's MariaDB; override with MYSQL_URL (any database name in it is ignored). */
const SERVER_URL = process.env.MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/test';

/** Creates a fresh, uniquely named database and returns its URL and a function that drops it. */
export async function createScratchDatabase(prefix: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `${prefix}_${process.pid}_${Date.now().toString(36)}`;
  const server = new URL(SERVER_URL);
  await withConnection(server, (c) => c.query(`CREATE DATABASE \`${name}\``));
  const url = new URL(server);
  url.pathname = `/${name}`;
  return { url: url.href, drop: () => withConnection(server, (c) => c.query(`DROP DATABASE IF EXISTS \`${name}\``)) };
}

async function withConnection(server: URL, work: (c: Awaited<ReturnType<typeof createConnection>>) => Promise<unknown>): Promise<void> {
  const connection = await createConnection({
    host: server.hostname,
    port: Number(server.port || 3306),
    user: decodeURIComponent(server.username),
    password: decodeURIComponent(server.password),
  });
  try {
    await work(connection);
  } finally {
    await connection.end();
  }
}
