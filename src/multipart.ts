/**
 * multipart/form-data (RFC 7578), read from a body already in memory: a
 * field is the bytes between its part's headers and the next boundary,
 * checked as UTF-8 as a urlencoded body is. A part's declared charset is
 * ignored, as Django and PHP ignore it: fields are UTF-8. Files (parts with
 * a filename, or application/octet-stream) are skipped: no resource has them.
 */

/** A body that is not multipart/form-data as its boundary says; `reason` is for logs, never shown. */
export class MultipartError extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'MultipartError';
  }
}

export interface MultipartLimits {
  /** Parts allowed, files included. */
  parts: number;
}

/** Every field's name and text, in the order sent; files left out. */
export type MultipartField = [name: string, value: string];

const CRLF = Buffer.from('\r\n');
const HEADERS_END = Buffer.from('\r\n\r\n');
/** RFC 2046's boundary: 1 to 70 characters of this set, not ending in a space. */
const BOUNDARY = /^[0-9A-Za-z'()+_,\-./:=? ]{0,69}[0-9A-Za-z'()+_,\-./:=?]$/;
/** Part headers beyond this are no form's: a browser writes two short lines. */
const MAX_HEADER_BYTES = 16 * 1024;
const utf8 = new TextDecoder('utf-8', { fatal: true });

function decode(bytes: Buffer, what: string): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw new MultipartError(`invalid UTF-8 in ${what}`);
  }
}

/** A header's parameters (`; name="value"`, tokens or quoted strings with backslash escapes), names in lower case. */
function headerParameters(value: string): { type: string; params: Map<string, string> } {
  const params = new Map<string, string>();
  const semicolon = value.indexOf(';');
  const type = (semicolon < 0 ? value : value.slice(0, semicolon)).trim().toLowerCase();
  const PARAMETER = /;\s*([^\s=;"]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s;"]*))\s*/y;
  let at = semicolon < 0 ? value.length : semicolon;
  while (!/^[\s;]*$/.test(value.slice(at))) {
    PARAMETER.lastIndex = at;
    const match = PARAMETER.exec(value);
    if (!match) throw new MultipartError('malformed header parameters');
    const [, name = '', quoted, token] = match;
    params.set(name.toLowerCase(), quoted !== undefined ? quoted.replace(/\\(.)/g, '$1') : (token ?? ''));
    at = PARAMETER.lastIndex;
  }
  return { type, params };
}

/** A part's headers, names in lower case; the last of a repeated one. */
function partHeaders(block: Buffer): Map<string, string> {
  const headers = new Map<string, string>();
  if (block.length === 0) return headers;
  for (const line of decode(block, 'part headers').split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon <= 0) throw new MultipartError('malformed part header');
    headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return headers;
}

/** The field a part holds, or null for a file or a part that is no form field. */
function partField(headers: Map<string, string>, content: Buffer): MultipartField | null {
  const disposition = headers.get('content-disposition');
  if (disposition === undefined) return null;
  const { type, params } = headerParameters(disposition);
  const name = params.get('name');
  if (type !== 'form-data' || name === undefined) return null;
  const mediaType = headerParameters(headers.get('content-type') ?? 'text/plain').type;
  if (params.has('filename') || params.has('filename*') || mediaType === 'application/octet-stream') return null;
  return [name, decode(content, 'a field')];
}

/** The fields of `body`, whose parts `boundary` (the Content-Type's parameter) separates. */
export function multipartFields(body: Buffer, boundary: string | undefined, limits: MultipartLimits): MultipartField[] {
  if (boundary === undefined || !BOUNDARY.test(boundary)) throw new MultipartError('no valid boundary');
  const first = Buffer.from(`--${boundary}`);
  const delimiter = Buffer.concat([CRLF, first]);
  let at = first.length;
  if (!body.subarray(0, first.length).equals(first)) {
    // A preamble before the first boundary is allowed, and ignored.
    const found = body.indexOf(delimiter);
    if (found < 0) throw new MultipartError('no boundary');
    at = found + delimiter.length;
  }
  const fields: MultipartField[] = [];
  for (let parts = 0; ; parts += 1) {
    // The close delimiter ends the body; what follows (the epilogue) is ignored.
    if (body[at] === 0x2d && body[at + 1] === 0x2d) return fields;
    if (parts >= limits.parts) throw new MultipartError('too many parts');
    while (body[at] === 0x20 || body[at] === 0x09) at += 1;
    if (!body.subarray(at, at + 2).equals(CRLF)) throw new MultipartError('no line end after a boundary');
    at += 2;
    let headersEnd: number;
    let contentStart: number;
    if (body.subarray(at, at + 2).equals(CRLF)) {
      headersEnd = at;
      contentStart = at + 2;
    } else {
      headersEnd = body.indexOf(HEADERS_END, at);
      if (headersEnd < 0 || headersEnd - at > MAX_HEADER_BYTES) throw new MultipartError('part headers without an end');
      contentStart = headersEnd + HEADERS_END.length;
    }
    const contentEnd = body.indexOf(delimiter, contentStart);
    if (contentEnd < 0) throw new MultipartError('a part without a closing boundary');
    const field = partField(partHeaders(body.subarray(at, headersEnd)), body.subarray(contentStart, contentEnd));
    if (field) fields.push(field);
    at = contentEnd + delimiter.length;
  }
}
