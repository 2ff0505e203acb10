/**
 * The text of a body that holds a list being read (an ItemStream), as the
 * renderers write it: what surrounds the list, then its items in pieces of
 * about 16 kB. Each batch becomes text as soon as it is read, so that what
 * waits for a slow client is text, never more than one batch of it, and not
 * the items' objects. The bytes are those JSON.stringify gives the whole
 * body, compact or indented.
 */
import { randomUUID } from 'node:crypto';
import { ItemStream, type Item } from './contracts.js';

/** Stands for the stream inside the JSON of what surrounds it; random, so that no value can look like it. */
const STREAM_PLACEHOLDER = `stream-${randomUUID()}`;

/** About how many characters a piece holds: written out one at a time, and small enough to stay out of V8's large-object space. */
const PIECE_LENGTH = 16 * 1024;

/** A body's list, and the body's text before and after it. */
export interface StreamedBody {
  stream: ItemStream;
  before: string;
  after: string;
  /** The indentation of the line the list starts on: its closing bracket's. */
  indent: string;
}

/** The text around the body's ItemStream, compact or indented by `space` (as JSON.stringify's); undefined when it holds none. */
export function streamedBody(data: unknown, space?: number): StreamedBody | undefined {
  let stream: ItemStream | undefined;
  const text = JSON.stringify(
    data,
    (_key, value: unknown) => {
      if (!(value instanceof ItemStream)) return value;
      stream = value;
      return STREAM_PLACEHOLDER;
    },
    space,
  );
  const at = text.indexOf(`"${STREAM_PLACEHOLDER}"`);
  if (!stream || at < 0) return undefined;
  const line = text.slice(text.lastIndexOf('\n', at) + 1, at);
  const indent = /^ */.exec(line)?.[0] ?? '';
  return { stream, before: text.slice(0, at), after: text.slice(at + STREAM_PLACEHOLDER.length + 2), indent };
}

/**
 * The list as JSON text, piece by piece: `[`, each item as `show` writes
 * it, `]`; with `space`, one item a line as JSON.stringify indents them
 * (`show` then indents the item's own lines after its first by `inner`).
 */
export async function* listPieces(body: StreamedBody, show: (item: Item, inner: string) => string, space?: number): AsyncGenerator<string> {
  const inner = space === undefined ? '' : body.indent + ' '.repeat(space);
  const separator = space === undefined ? ',' : `,\n${inner}`;
  let started = false;
  /** The next batch as text; the batch itself goes out of reach on return. */
  const nextPieces = async (): Promise<string[] | null> => {
    const items = await body.stream.next();
    if (!items) return null;
    const pieces: string[] = [];
    let parts: string[] = [];
    let length = 0;
    for (const item of items) {
      const text = (started ? separator : space === undefined ? '[' : `[\n${inner}`) + show(item, inner);
      started = true;
      parts.push(text);
      length += text.length;
      if (length >= PIECE_LENGTH) {
        pieces.push(parts.join(''));
        parts = [];
        length = 0;
      }
    }
    if (parts.length > 0) pieces.push(parts.join(''));
    return pieces;
  };
  for (let pieces = await nextPieces(); pieces; pieces = await nextPieces()) yield* pieces;
  if (!started) yield '[]';
  else yield space === undefined ? ']' : `\n${body.indent}]`;
}

/** An item as JSON.stringify writes it inside a list indented by `space`, its lines after the first at `inner`. */
export function indentedItem(item: Item, inner: string, space: number): string {
  return JSON.stringify(item, null, space).replaceAll('\n', `\n${inner}`);
}
