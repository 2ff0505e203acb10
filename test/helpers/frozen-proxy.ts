/**
 * A TCP proxy to PostgreSQL that a test can freeze: a database that stopped
 * answering (a stopped server, a network cut without a reset), and what the
 * application asks of it meanwhile. It reads the client's side of the wire
 * protocol far enough to name each statement sent, so that a test counts
 * waits (statements and connections) instead of timing them.
 */
import net, { type AddressInfo, type Socket } from 'node:net';

/** What clients asked while the proxy was frozen. */
export interface AskedWhileFrozen {
  /** Connections opened. */
  connections: number;
  /** The statements sent (their SQL), on any connection. */
  statements: string[];
}

export interface FrozenProxy {
  /** The database URL, through the proxy. */
  url: string;
  /** Every statement sent through the proxy so far, frozen or not, in order. */
  readonly statements: readonly string[];
  /** What was asked since the last freeze(). */
  readonly whileFrozen: AskedWhileFrozen;
  /** Resolves when a client next asks something (a connection, a statement) while frozen. */
  nextAsked(): Promise<void>;
  /** Passes no byte either way from now on, on any connection, open or new: held until thaw(). */
  freeze(): void;
  /** Freezes as the first statement whose SQL matches `pattern` is sent: that statement is the first held. */
  freezeOn(pattern: RegExp): void;
  /** Passes on what was held, and everything from now on. */
  thaw(): void;
  /** The connections open now pass nothing ever again, as after a network cut; connections opened later pass. */
  cutOpen(): void;
  close(): Promise<void>;
}

/** The protocol numbers of the untyped requests that may open a connection: SSL, GSS encryption, cancel. */
const UNTYPED_REQUESTS = new Set([80877103, 80877104, 80877102]);

/**
 * The statements in a client's stream of frontend messages: a simple query's
 * text (Q), or an extended query's (its Parse, P) once it is executed (E).
 */
class StatementReader {
  private pending = Buffer.alloc(0);
  private started = false;
  private parsed = '';

  constructor(private readonly onStatement: (sql: string) => void) {}

  read(chunk: Buffer): void {
    this.pending = Buffer.concat([this.pending, chunk]);
    for (;;) {
      const header = this.started ? 5 : 8;
      if (this.pending.length < header) return;
      const length = this.started ? this.pending.readInt32BE(1) + 1 : this.pending.readInt32BE(0);
      if (this.pending.length < length) return;
      const message = this.pending.subarray(0, length);
      this.pending = this.pending.subarray(length);
      if (this.started) this.message(message);
      else this.started = !UNTYPED_REQUESTS.has(message.readInt32BE(4));
    }
  }

  private message(message: Buffer): void {
    const type = String.fromCharCode(message[0] ?? 0);
    const body = message.subarray(5);
    const text = (from: Buffer): string => from.subarray(0, from.indexOf(0)).toString('utf8');
    if (type === 'Q') this.onStatement(text(body));
    // Parse: the statement's name, then its text.
    if (type === 'P') this.parsed = text(body.subarray(body.indexOf(0) + 1));
    if (type === 'E') this.onStatement(this.parsed);
  }
}

/** One client's connection and its own to the database; frozen, each side's bytes are held instead of passed. */
class Relay {
  private readonly held: { toServer: Buffer[]; toClient: Buffer[] } = { toServer: [], toClient: [] };
  frozen = false;
  cut = false;

  constructor(
    private readonly client: Socket,
    private readonly server: Socket,
    reader: StatementReader,
  ) {
    client.on('data', (chunk: Buffer) => {
      reader.read(chunk);
      this.pass(chunk, this.server, this.held.toServer);
    });
    server.on('data', (chunk: Buffer) => this.pass(chunk, this.client, this.held.toClient));
    for (const socket of [client, server]) {
      socket.on('error', () => undefined);
      socket.on('close', () => this.destroy());
    }
  }

  private pass(chunk: Buffer, to: Socket, held: Buffer[]): void {
    if (this.cut) return;
    if (this.frozen) held.push(chunk);
    else to.write(chunk);
  }

  thaw(): void {
    this.frozen = false;
    if (this.cut) return;
    for (const chunk of this.held.toServer.splice(0)) this.server.write(chunk);
    for (const chunk of this.held.toClient.splice(0)) this.client.write(chunk);
  }

  destroy(): void {
    this.client.destroy();
    this.server.destroy();
  }
}

/** A proxy on a port of its own to the PostgreSQL server of `databaseUrl`; close() ends it and every connection through it. */
export async function frozenProxy(databaseUrl: string): Promise<FrozenProxy> {
  const target = new URL(databaseUrl);
  const relays = new Set<Relay>();
  const statements: string[] = [];
  let frozen = false;
  let whileFrozen: AskedWhileFrozen = { connections: 0, statements: [] };
  let waiting: (() => void)[] = [];
  let freezesOn: RegExp | undefined;
  const asked = (): void => {
    for (const resolve of waiting.splice(0)) resolve();
  };
  const proxy = net.createServer((client) => {
    if (frozen) {
      whileFrozen.connections += 1;
      asked();
    }
    const server = net.connect(Number(target.port || 5432), target.hostname);
    const reader = new StatementReader((sql) => {
      statements.push(sql);
      if (!frozen && freezesOn?.test(sql)) freeze();
      if (!frozen) return;
      whileFrozen.statements.push(sql);
      asked();
    });
    const relay = new Relay(client, server, reader);
    relay.frozen = frozen;
    relays.add(relay);
    client.on('close', () => relays.delete(relay));
  });
  proxy.listen(0, '127.0.0.1');
  await new Promise((resolve) => proxy.once('listening', resolve));
  const url = new URL(target);
  url.host = `127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  const freeze = (): void => {
    frozen = true;
    freezesOn = undefined;
    whileFrozen = { connections: 0, statements: [] };
    for (const relay of relays) relay.frozen = true;
  };
  return {
    url: url.toString(),
    statements,
    get whileFrozen() {
      return whileFrozen;
    },
    nextAsked: () => new Promise((resolve) => waiting.push(resolve)),
    freeze,
    freezeOn(pattern) {
      freezesOn = pattern;
    },
    thaw() {
      frozen = false;
      for (const relay of relays) relay.thaw();
    },
    cutOpen() {
      for (const relay of relays) relay.cut = true;
    },
    async close() {
      waiting = [];
      for (const relay of relays) relay.destroy();
      await new Promise((resolve) => proxy.close(resolve));
    },
  };
}
