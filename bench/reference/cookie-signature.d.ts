/**
 * cookie-signature (express-session's and Express's own, installed with them):
 * `s:`-less signed values, `<value>.<base64 HMAC-SHA256 without padding>`.
 */
declare module 'cookie-signature' {
  export function sign(value: string, secret: string): string;
  /** The value, or false when the signature does not match. */
  export function unsign(signed: string, secret: string): string | false;
}
