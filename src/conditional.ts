/**
 * Conditional requests (RFC 9110 §13): entity tags for answers, and the
 * `If-None-Match` and `If-Match` comparisons. A row's tag is made from its
 * stored values (id, updated_at and every other column read, joined names
 * included), so it is known before the body is built; a list page's is
 * made from its tables' kept versions before it is read (page-tags.ts); any
 * other answer's tag is the hash of its bytes.
 */
import { hash } from 'node:crypto';

/** A strong entity tag of `content`: 160 bits of SHA-1, base64url (one-shot: no hash object per answer). */
export function entityTag(content: string | Buffer): string {
  return `"${hash('sha1', content, 'base64url')}"`;
}

/** The tags a conditional header lists; `*` as null. */
function listedTags(header: string): string[] | null {
  if (header.trim() === '*') return null;
  return header.match(/(?:W\/)?"[^"]*"/g) ?? [];
}

/** Whether a conditional header is `*`: any version (If-Match: the row need only exist). */
export function namesAnyVersion(header: string): boolean {
  return listedTags(header) === null;
}

/** `If-None-Match` (weak comparison): the client holds this representation already. */
export function noneMatch(header: string | undefined, tag: string): boolean {
  if (header === undefined) return false;
  const tags = listedTags(header);
  if (tags === null) return true;
  const opaque = tag.replace(/^W\//, '');
  return tags.some((listed) => listed.replace(/^W\//, '') === opaque);
}

/**
 * `If-Match` (strong comparison): whether the stored row is still the one the
 * client read. `*` asks only that it exists; a weak tag never matches.
 */
export function ifMatchHolds(header: string | undefined, tag: string): boolean {
  if (header === undefined) return true;
  const tags = listedTags(header);
  if (tags === null) return true;
  return tags.some((listed) => !listed.startsWith('W/') && listed === tag);
}
