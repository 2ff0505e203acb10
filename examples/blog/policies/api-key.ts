/**
 * `X-Api-Key: <key>`: a key the operator gave a script, standing for one
 * account. The keys are a setting, `BLOG_API_KEYS=<key>=<username>,…` (as a
 * DRF project reads its keys from settings, a Laravel one from config/), read
 * at each request so that a changed setting needs no restart of the test.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { credentialsRefused, type Authenticator } from 'declarest';

export const API_KEY_HEADER = 'x-api-key';
const CHALLENGE = 'ApiKey header="X-Api-Key"';

/** A key's digest: keys of any length compare in constant time. */
const digest = (text: string): Buffer => createHash('sha256').update(text).digest();

/** The setting's keys and the usernames they stand for; a pair without both halves is left out. */
export function configuredKeys(setting = process.env.BLOG_API_KEYS ?? ''): { key: Buffer; username: string }[] {
  return setting
    .split(',')
    .map((pair) => pair.trim().split('='))
    .filter((parts): parts is [string, string] => parts.length === 2 && parts[0] !== '' && parts[1] !== '')
    .map(([key, username]) => ({ key: digest(key), username }));
}

export const apiKeyAuthentication: Authenticator = {
  challenge: CHALLENGE,
  described: { name: 'apiKey', scheme: { type: 'apiKey', in: 'header', name: 'X-Api-Key' } },
  async authenticate(req, users) {
    const sent = req.headers[API_KEY_HEADER];
    // No header: another scheme (Basic, a session, a token) may identify the request.
    if (sent === undefined) return null;
    const given = digest(Array.isArray(sent) ? sent.join(',') : sent);
    // Every key compared, the one that matches or not: the time says nothing of which.
    let username: string | undefined;
    for (const { key, username: named } of configuredKeys()) if (timingSafeEqual(key, given)) username ??= named;
    const user = username === undefined ? null : await users.findUser(username);
    // A wrong key, or one whose account is gone or deactivated, fails the request rather than leaving it anonymous.
    if (!user) throw credentialsRefused(CHALLENGE);
    return { user };
  },
};
