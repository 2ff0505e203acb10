/**
 * The HTTP server of an Express application, its requests and answers made
 * with the application's own prototypes from the start.
 *
 * Express gives each request and answer the application's prototype as it
 * arrives (`Object.setPrototypeOf(req, app.request)`). After a prototype
 * change V8 shares no hidden class between two requests: every property
 * Express, Node and the framework then add to a request makes a new one, and
 * every read of it is looked up by name (expressjs/express#5998). Made by
 * subclasses whose prototypes are the application's, they already have the
 * prototype Express gives them, and its change is no change.
 */
import { createServer, IncomingMessage, ServerResponse, type Server } from 'node:http';
import type { Express } from 'express';
import { toOriginForm } from './middleware/hosts.js';

/** `prototype` made to stand for Express's `own` (the application's request or response prototype): its chain and what it holds. */
function adopted<T extends object>(own: T, prototype: object): T {
  Object.setPrototypeOf(prototype, Object.getPrototypeOf(own));
  Object.defineProperties(prototype, Object.getOwnPropertyDescriptors(own));
  return prototype as T;
}

/** How often Node looks for requests past their time (its default, 30 s, lets a request outlive its limit by as much). */
const TIMEOUT_CHECK_MS = 1_000;

/**
 * `requestTimeoutSeconds`: how long a request may take to arrive, headers and
 * body, until it has been read. Node's defaults (60 s for the headers, 300 s
 * in all, checked every 30 s) let a slow client hold a connection for minutes.
 */
export function createHttpServer(app: Express, requestTimeoutSeconds: number): Server {
  class AppRequest extends IncomingMessage {}
  class AppResponse extends ServerResponse {}
  app.request = adopted(app.request, AppRequest.prototype);
  app.response = adopted(app.response, AppResponse.prototype);
  const timeout = requestTimeoutSeconds * 1000;
  return createServer(
    { IncomingMessage: AppRequest, ServerResponse: AppResponse, requestTimeout: timeout, headersTimeout: timeout, connectionsCheckingInterval: TIMEOUT_CHECK_MS },
    (req, res) => {
      toOriginForm(req);
      app(req, res);
    },
  );
}

/**
 * `app.listen(port, host)` with that server: resolves once it listens. As
 * Express's listen, the error listener stays: a later server error is not
 * thrown from the event loop.
 */
export function listen(app: Express, port: number, host: string, requestTimeoutSeconds: number): Promise<Server> {
  const server = createHttpServer(app, requestTimeoutSeconds);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve(server));
  });
}

/**
 * Resolves once `server` has had no new request for `quietMs` (counted from
 * now), or after `latestMs` whatever comes: for work that holds the event
 * loop and can wait, such as loading the admin just after the start, so that
 * the first requests of a restarted process are not the ones that wait for it.
 */
export function whenQuiet(server: Server, quietMs: number, latestMs: number): Promise<void> {
  return new Promise((resolve) => {
    let requests = 0;
    const count = (): void => void (requests += 1);
    server.on('request', count);
    const started = performance.now();
    let seen = -1;
    const check = (): void => {
      if (requests === seen || performance.now() - started >= latestMs) {
        server.off('request', count);
        return resolve();
      }
      seen = requests;
      setTimeout(check, quietMs).unref();
    };
    check();
  });
}
