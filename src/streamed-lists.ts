/**
 * The text of a body that holds lists being read (ItemStreams), as the
 * renderers write it: what surrounds each list, then its items in pieces of
 * about 16 kB. Each batch becomes text as soon as it is read, so that what
 * waits for a slow client is text, never more than one batch of it, and not
 * the items' objects. The bytes are those JSON.stringify gives the whole
 * body, compact or indented.
 */
import { randomUUID } from 'node:crypto';
import { ItemStream } from './contracts.js';
import type { Item } from './types/rows.js';

/** Stands for a list inside the JSON of what surrounds it; random, so that no value can look like it. */
const STREAM_PLACEHOLDER = `stream-${randomUUID()}`;
const PLACED = `"${STREAM_PLACEHOLDER}"`;

/** About how many characters a piece holds: written out one at a time, and small enough to stay out of V8's large-object space. */
const PIECE_LENGTH = 16 * 1024;

/** A list of the body, and the body's text before it (after the list before it). */
export interface StreamedList {
  before: string;
  stream: ItemStream;
  /** The indentation of the line the list starts on: its closing bracket's. */
  indent: string;
}

/** A body's lists in their order, and its text after the last one. */
export interface StreamedBody {
  lists: StreamedList[];
  after: string;
}

/** The text around the body's ItemStreams, compact or indented by `space` (as JSON.stringify's); undefined when it holds none. */
export function streamedBody(data: unknown, space?: number): StreamedBody | undefined {
  const streams: ItemStream[] = [];
  const text = JSON.stringify(
    data,
    (_key, value: unknown) => {
      if (!(value instanceof ItemStream)) return value;
      streams.push(value);
      return STREAM_PLACEHOLDER;
    },
    space,
  );
  if (streams.length === 0) return undefined;
  const lists: StreamedList[] = [];
  let from = 0;
  for (const stream of streams) {
    const at = text.indexOf(PLACED, from);
    const line = text.slice(text.lastIndexOf('\n', at) + 1, at);
    lists.push({ before: text.slice(from, at), stream, indent: /^ */.exec(line)?.[0] ?? '' });
    from = at + PLACED.length;
  }
  return { lists, after: text.slice(from) };
}

/**
 * A list as JSON text, piece by piece: `[`, each item as `show` writes it,
 * `]`; with `space`, one item a line as JSON.stringify indents them (`show`
 * then indents the item's own lines after its first by `inner`). Each list
 * reads its stream from the start.
 */
export async function* listPieces(list: StreamedList, show: (item: Item, inner: string) => string, space?: number): AsyncGenerator<string> {
  const inner = space === undefined ? '' : list.indent + ' '.repeat(space);
  const separator = space === undefined ? ',' : `,\n${inner}`;
  const next = list.stream.open();
  let started = false;
  /** The next batch as text; the batch itself goes out of reach on return. */
  const nextPieces = async (): Promise<string[] | null> => {
    const items = await next();
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
  else yield space === undefined ? ']' : `\n${list.indent}]`;
}

/** The body's text, piece by piece: each list's text before it and its items (written by `pieces`), then the text after the last. */
export async function* bodyPieces(body: StreamedBody, text: (json: string) => string, pieces: (list: StreamedList) => AsyncIterable<string>): AsyncGenerator<string> {
  for (const list of body.lists) {
    yield text(list.before);
    yield* pieces(list);
  }
  yield text(body.after);
}

/** An item as JSON.stringify writes it inside a list indented by `space`, its lines after the first at `inner`. */
export function indentedItem(item: Item, inner: string, space: number): string {
  return JSON.stringify(item, null, space).replaceAll('\n', `\n${inner}`);
}
