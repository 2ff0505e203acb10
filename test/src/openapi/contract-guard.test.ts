import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { checkContract, compareWithAccepted, contractChanges } from '../../../src/cli/contract.js';
import { translator } from '../../../src/i18n.js';
import { describeChange } from '../../../src/openapi/compatibility.js';
import { createTestClient, type TestClient } from '../../../src/testing/index.js';

/**
 * CI's guard on the public API: each application's committed openapi.json
 * and the description its declarations make now differ by no breaking
 * change. One that is intended is accepted with `npm run manage -- openapi --accept`.
 */
const t = translator('en', ['cli', 'common']);

describe.each([['the comment service', '.'], ['the blog', 'examples/blog']])('%s', (_name, app) => {
  let client: TestClient;
  beforeAll(async () => {
    client = await createTestClient({ app });
  });
  afterAll(() => client.close());

  test('makes no breaking change to its committed openapi.json', () => {
    const breaking = contractChanges(client.services, t).filter((change) => change.kind === 'breaking');
    expect(breaking.map(describeChange)).toEqual([]);
  });

  test('passes `manage openapi --check`', () => {
    expect(checkContract(client.services, t).at(-1)).toMatch(/matches openapi\.json|additive change/);
  });
});

describe('manage openapi --check on texts', () => {
  const current = JSON.stringify({ openapi: '3.1.0', info: { title: 'T', version: '1' }, paths: { '/things': { get: { description: 'Now.', responses: { 200: { description: 'OK' } } } } } }, null, 2);

  test('the same description matches', () => {
    expect(compareWithAccepted(current, current, 'openapi.json', t)).toEqual(['The API description matches openapi.json.']);
  });

  test('a committed description whose texts changed breaks nothing, but is said to be out of date', () => {
    const older = current.replace('Now.', 'Before.');
    expect(compareWithAccepted(older, current, 'openapi.json', t)).toEqual([
      'The API description matches openapi.json but for its texts: nothing breaks. Bring openapi.json up to date with npm run manage -- openapi --accept.',
    ]);
  });
});
