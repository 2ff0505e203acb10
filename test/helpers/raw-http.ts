/**
 * HTTP/1.1 written as bytes, for requests no HTTP client writes (malformed
 * ones, a request-target that is a whole URL, a body that stops short).
 */
import { connect } from 'node:net';

export interface Answer {
  status: number | null;
  head: string;
  body: Buffer;
}

/** Sends raw bytes and reads until the server closes; a status is null when it answered nothing. */
export function exchange(port: number, bytes: Buffer): Promise<Answer> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const finish = (): void => {
      const all = Buffer.concat(chunks);
      const split = all.indexOf('\r\n\r\n');
      const head = all.subarray(0, split < 0 ? all.length : split).toString('latin1');
      const match = /^HTTP\/1\.1 (\d{3})/.exec(head);
      resolve({ status: match ? Number(match[1]) : null, head, body: split < 0 ? Buffer.alloc(0) : all.subarray(split + 4) });
    };
    socket.setTimeout(10_000, () => socket.destroy());
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => undefined);
    socket.on('close', finish);
    // No half-close: Node's server, like most, drops a request whose client has stopped sending before it answered.
    socket.write(bytes);
  });
}

/** Whether a new connection to `port` on `host` is refused (nothing listens there any more). */
export function connectionRefused(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, host);
    socket.once('connect', () => (socket.destroy(), resolve(false)));
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });
}
