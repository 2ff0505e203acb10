import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { checkContract, contractChanges } from '../../../src/cli/contract.js';
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
