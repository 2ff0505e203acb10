import type { IncomingMessage, ServerResponse } from 'node:http';

/** One answer as the client saw it: for checking it against the OpenAPI description. */
export interface RecordedResponse {
  method: string;
  /** The request's path, without the query. */
  path: string;
  status: number;
  contentType: string | undefined;
  body: Buffer;
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** `app`, keeping a copy of every answer's status, type and bytes in `log`. */
export function recordingHandler(app: Handler, log: RecordedResponse[]): Handler {
  return (req, res) => {
    const method = req.method ?? 'GET';
    const path = new URL(req.url ?? '/', 'http://recorded.test').pathname;
    const chunks: Buffer[] = [];
    const keep = (chunk: unknown): void => {
      if (typeof chunk === 'string' || chunk instanceof Uint8Array) chunks.push(Buffer.from(chunk));
    };
    const write = res.write.bind(res) as (...args: unknown[]) => boolean;
    const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
    res.write = ((chunk: unknown, ...rest: unknown[]) => {
      keep(chunk);
      return write(chunk, ...rest);
    }) as typeof res.write;
    res.end = ((chunk?: unknown, ...rest: unknown[]) => {
      keep(chunk);
      const type = res.getHeader('content-type');
      log.push({ method, path, status: res.statusCode, contentType: typeof type === 'string' ? type : undefined, body: Buffer.concat(chunks) });
      return end(chunk, ...rest);
    }) as typeof res.end;
    app(req, res);
  };
}
