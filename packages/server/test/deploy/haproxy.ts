/**
 * HAProxy for the deployment test: the Debian package, installed when it is missing, run in the
 * foreground on loopback with deploy/haproxy/haproxy.cfg unchanged (its addresses come from the
 * environment), and read through its runtime API on a Unix socket of the test's own.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { accessSync, constants } from 'node:fs';
import { connect, createServer } from 'node:net';
import { join } from 'node:path';

export const HAPROXY_CONFIG = new URL('../../../../deploy/haproxy/haproxy.cfg', import.meta.url).pathname;

/** How long apt-get may take to install the package (a fresh machine reads its lists first). */
const INSTALL_TIMEOUT = 240_000;

/** What the test says when it cannot have HAProxy: it fails with this, it never skips. */
export function haproxyMissingMessage(tried: string): string {
  return `This test needs HAProxy (the Debian package haproxy, 2.6 or later) on the PATH and could not install it: ${tried}. Install it (apt-get install -y haproxy, as root) and run the test again.`;
}

/**
 * Where Debian puts the binary, looked in when the PATH has none: a PATH without the sbin
 * directories (a non-login shell's, or a CI runner's) missed a haproxy that apt-get had just
 * installed, and the test failed with "apt-get install -y haproxy failed (exit 0)".
 */
const SBIN_DIRECTORIES = ['/usr/local/sbin', '/usr/sbin', '/sbin'];

/** The path of the haproxy binary, installing the Debian package first when there is none. */
export function ensureHaproxy(): string {
  const found = findHaproxy();
  if (found !== undefined) return found;
  if (process.getuid?.() !== 0) throw new Error(haproxyMissingMessage('installing needs root'));
  const install = () =>
    spawnSync('apt-get', ['install', '-y', '--no-install-recommends', 'haproxy'], {
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
      encoding: 'utf8',
      timeout: INSTALL_TIMEOUT,
    });
  let result = install();
  // A machine whose package lists were never read knows no haproxy yet.
  if (result.status !== 0) {
    spawnSync('apt-get', ['update'], { encoding: 'utf8', timeout: INSTALL_TIMEOUT });
    result = install();
  }
  const installed = findHaproxy();
  if (installed !== undefined) return installed;
  const why = result.error?.message ?? result.stderr.trim().split('\n').slice(-3).join(' ');
  throw new Error(
    haproxyMissingMessage(
      result.status === 0
        ? `apt-get install -y haproxy succeeded, but no haproxy is on the PATH or in ${SBIN_DIRECTORIES.join(', ')}`
        : `apt-get install -y haproxy failed (${why || `exit ${result.status}`})`,
    ),
  );
}

function findHaproxy(): string | undefined {
  return (
    which('haproxy') ??
    SBIN_DIRECTORIES.map((directory) => join(directory, 'haproxy')).find((path) => isExecutable(path))
  );
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function which(command: string): string | undefined {
  const result = spawnSync('sh', ['-c', `command -v ${command}`], { encoding: 'utf8' });
  const path = result.stdout.trim();
  return result.status === 0 && path !== '' ? path : undefined;
}

/** A loopback port nothing listens on now: the kernel picks it, and it is given back at once. */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

/** One server line of HAProxy's `show stat`: its name and its check's verdict (UP, DOWN, ...). */
export interface ServerState {
  readonly name: string;
  readonly status: string;
}

export class Haproxy {
  readonly url: string;
  readonly #process: ChildProcess;
  readonly #socket: string;
  #output = '';

  private constructor(process: ChildProcess, url: string, socket: string) {
    this.#process = process;
    this.url = url;
    this.#socket = socket;
    const keep = (chunk: string) => {
      this.#output += chunk;
    };
    process.stdout?.setEncoding('utf8').on('data', keep);
    process.stderr?.setEncoding('utf8').on('data', keep);
  }

  /** Starts HAProxy with the deployment's configuration, the servers' addresses in its environment. */
  static async start(
    binary: string,
    dir: string,
    servers: Readonly<Record<string, string>>,
  ): Promise<Haproxy> {
    const port = await freePort();
    const socket = join(dir, 'haproxy.sock');
    const child = spawn(binary, ['-db', '-f', HAPROXY_CONFIG], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        CODEMODE_LB_BIND: `127.0.0.1:${port}`,
        HAPROXY_STATS_SOCKET: socket,
        ...servers,
      },
    });
    return new Haproxy(child, `ws://127.0.0.1:${port}/`, socket);
  }

  /** What HAProxy printed: its alerts name what went wrong when it would not start. */
  get output(): string {
    return this.#output;
  }

  get exited(): boolean {
    return this.#process.exitCode !== null || this.#process.signalCode !== null;
  }

  /** The backend's servers as the health checks see them, through the runtime API. */
  async servers(): Promise<ServerState[]> {
    const csv = await this.#ask('show stat');
    const [header, ...rows] = csv.trim().split('\n');
    const columns = (header ?? '').replace(/^# /, '').split(',');
    const at = (name: string) => columns.indexOf(name);
    return rows
      .map((row) => row.split(','))
      .filter(
        (cells) =>
          cells[at('pxname')] === 'executors' && !['FRONTEND', 'BACKEND'].includes(cells[at('svname')] ?? ''),
      )
      .map((cells) => ({ name: cells[at('svname')] ?? '', status: cells[at('status')] ?? '' }));
  }

  /** The check verdict of one server, or undefined while the runtime API does not answer. */
  async status(name: string): Promise<string | undefined> {
    try {
      return (await this.servers()).find((server) => server.name === name)?.status;
    } catch {
      return undefined;
    }
  }

  #ask(command: string): Promise<string> {
    return new Promise((resolve, reject) => {
      const socket = connect(this.#socket);
      let answer = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => {
        answer += chunk;
      });
      socket.on('end', () => resolve(answer));
      socket.on('error', reject);
      socket.end(`${command}\n`);
    });
  }

  async stop(): Promise<void> {
    if (this.exited) return;
    const ended = once(this.#process, 'exit');
    this.#process.kill('SIGTERM');
    await ended;
  }
}
