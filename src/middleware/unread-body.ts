/**
 * An answer given before its request's body has arrived (a 401 before a POST
 * is read, a refused host, a 429) closes its connection: Node would otherwise
 * keep reading the rest of the body to reuse the connection, and when the
 * client never sends it, write a second, unrequested 408 on the same
 * connection once REQUEST_TIMEOUT_SECONDS have passed.
 */
import type { ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import typeis from 'type-is';

export function closeOnUnreadBody(): RequestHandler {
  return (req, res, next) => {
    // Only requests with a body: reads (the hot path) go as they are.
    if (!typeis.hasBody(req)) return next();
    const response: ServerResponse = res;
    const writeHead = response.writeHead;
    // Node's res.end() writes its head through writeHead too.
    response.writeHead = function (this: ServerResponse, ...args: Parameters<ServerResponse['writeHead']>) {
      if (!req.complete && !this.headersSent) this.setHeader('Connection', 'close');
      return writeHead.apply(this, args);
    } as ServerResponse['writeHead'];
    next();
  };
}
