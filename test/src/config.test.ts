import { describe, expect, test } from '@jest/globals';
import { checkServerConfig, ConfigError, DEFAULT_DATABASE_URL, describeConfigError, loadConfig } from '../../src/config.js';
import { translator } from '../../src/i18n.js';

describe('configuration from the environment', () => {
  test('defaults serve on 127.0.0.1:8000 over the SQLite file under data/', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      databaseUrl: DEFAULT_DATABASE_URL,
      port: 8000,
      host: '127.0.0.1',
      debug: false,
      tokenExpirationMinutes: null,
      timeZone: 'UTC',
      apiForceJson: false,
      webConcurrency: 1,
      basicAuthCacheSeconds: 300,
      passwordIterations: 600000,
    });
    expect(DEFAULT_DATABASE_URL).toBe('sqlite:data/db.sqlite3');
  });

  test("another application's default database is its own file, under its root", () => {
    expect(loadConfig({ APP_ROOT: 'examples/blog' }).databaseUrl).toBe('sqlite:examples/blog/data/db.sqlite3');
    expect(loadConfig({ APP_ROOT: './' }).databaseUrl).toBe(DEFAULT_DATABASE_URL);
    expect(loadConfig({ APP_ROOT: 'examples/blog', DATABASE_URL: 'sqlite::memory:' }).databaseUrl).toBe('sqlite::memory:');
  });

  test('every documented variable is read', () => {
    const config = loadConfig({
      DATABASE_URL: 'postgres://u@h/db',
      PORT: '9000',
      HOST: '0.0.0.0',
      SECRET_KEY: 's3cret',
      DEBUG: 'true',
      TOKEN_EXPIRATION_MINUTES: '60',
      TIME_ZONE: 'Asia/Tokyo',
      API_FORCE_JSON: '1',
      REDIS_URL: 'redis://127.0.0.1:6379',
      WEB_CONCURRENCY: '2',
      BASIC_AUTH_CACHE_SECONDS: '0',
    });
    expect(config).toMatchObject({
      databaseUrl: 'postgres://u@h/db',
      port: 9000,
      host: '0.0.0.0',
      secretKey: 's3cret',
      debug: true,
      tokenExpirationMinutes: 60,
      timeZone: 'Asia/Tokyo',
      apiForceJson: true,
      redisUrl: 'redis://127.0.0.1:6379',
      webConcurrency: 2,
      basicAuthCacheSeconds: 0,
    });
  });

  test('TRUST_PROXY takes what Express takes: hops, a flag, addresses, networks and proxy-addr\'s names', () => {
    expect(loadConfig({ TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ TRUST_PROXY: 'yes' }).trustProxy).toBe(true);
    expect(loadConfig({ TRUST_PROXY: 'loopback, 10.0.0.0/8, 192.168.1.7, fe80::/10' }).trustProxy).toBe('loopback, 10.0.0.0/8, 192.168.1.7, fe80::/10');
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/255.0.0.0' }).trustProxy).toBe('10.0.0.0/255.0.0.0');
    expect(loadConfig({ LOG_LEVEL: 'WARN' }).logLevel).toBe('warn');
  });

  test('REDIS_URL takes what ioredis takes: a redis:// or rediss:// URL, a socket path, host[:port]', () => {
    for (const url of ['redis://:pw@cache:6380/2', 'rediss://cache.example.com', '/var/run/redis.sock', 'localhost:6379', 'cache']) {
      expect(loadConfig({ REDIS_URL: url }).redisUrl).toBe(url);
    }
  });

  test('empty values count as unset', () => {
    expect(loadConfig({ PORT: '', TOKEN_EXPIRATION_MINUTES: ' ' })).toMatchObject({ port: 8000, tokenExpirationMinutes: null });
  });

  test.each([
    ['PORT', 'eighty'],
    ['PORT', '70000'],
    ['DEBUG', 'maybe'],
    ['TIME_ZONE', 'Mars/Olympus'],
    ['TOKEN_EXPIRATION_MINUTES', '-5'],
    ['WEB_CONCURRENCY', '0'],
    ['BASIC_AUTH_CACHE_SECONDS', '-1'],
    ['TRUST_PROXY', 'banana'],
    ['TRUST_PROXY', '10.0.0.1, nowhere'],
    ['LOG_LEVEL', 'loud'],
    ['REDIS_URL', 'http://cache.example.com'],
    ['REDIS_URL', 'cache server'],
  ])('%s=%s is refused with the variable named', (variable, value) => {
    expect(() => loadConfig({ [variable]: value })).toThrow(ConfigError);
    try {
      loadConfig({ [variable]: value });
    } catch (error) {
      expect((error as ConfigError).variable).toBe(variable);
    }
  });

  test('a refused setting is explained in the language of the command line, what it takes included', () => {
    const refusal = (env: Record<string, string>): ConfigError => {
      try {
        loadConfig(env);
      } catch (error) {
        if (error instanceof ConfigError) return error;
      }
      throw new Error('the setting was accepted');
    };
    const en = translator('en', ['cli', 'common']);
    const ja = translator('ja', ['cli', 'common']);
    const port = refusal({ PORT: 'eighty' });
    expect(describeConfigError(en, port)).toBe('Invalid setting PORT=eighty: expected integer 0-65535.');
    expect(describeConfigError(ja, port)).toBe('設定 PORT=eighty は使えません。0〜65535 の整数 を指定してください。');
    const zone = refusal({ TIME_ZONE: 'Mars/Olympus' });
    expect(describeConfigError(ja, zone)).toContain('IANA のタイムゾーン名');
    expect(describeConfigError(ja, zone)).not.toMatch(/expected|IANA time zone/);
  });
});

describe("a production server's SECRET_KEY", () => {
  const strong = 'k'.repeat(40) + 'abcdefghij';
  const refusal = (env: Record<string, string>): string => {
    try {
      checkServerConfig(loadConfig({ NODE_ENV: 'production', ...env }));
    } catch (error) {
      return describeConfigError(translator('en', ['cli', 'common']), error as ConfigError);
    }
    return 'accepted';
  };

  test('is required', () => {
    expect(refusal({})).toMatch(/^Invalid setting SECRET_KEY=: expected a random string of at least 50 characters/);
  });

  test.each([
    ['shorter than 50 characters', 'short-but-random-Zq81'],
    ['one character repeated', 'x'.repeat(64)],
    ['four characters repeated', 'abcd'.repeat(20)],
  ])('is refused when %s, and the refusal tells its length but never the key', (_case, key) => {
    const said = refusal({ SECRET_KEY: key });
    expect(said).toContain(`Invalid setting SECRET_KEY (${key.length} characters, not shown)`);
    expect(said).not.toContain(key);
  });

  test('comes with DEBUG off: a production server with DEBUG on is refused, as its errors would show clients the code', () => {
    expect(refusal({ SECRET_KEY: strong, DEBUG: '1' })).toBe("Invalid setting DEBUG=on: expected off when NODE_ENV=production: it shows every client the code's stack traces.");
    expect(() => checkServerConfig(loadConfig({ DEBUG: '1' }))).not.toThrow();
  });

  test('is accepted at 50 characters with 5 different ones, and not checked outside production', () => {
    expect(refusal({ SECRET_KEY: strong })).toBe('accepted');
    expect(() => checkServerConfig(loadConfig({ SECRET_KEY: 'dev' }))).not.toThrow();
  });
});

describe('CORS_ALLOWED_ORIGINS', () => {
  test('is any origin by default, none when off, and else a list of origins, each scheme, host and port only', () => {
    expect(loadConfig({}).corsAllowedOrigins).toBe('*');
    expect(loadConfig({ CORS_ALLOWED_ORIGINS: 'off' }).corsAllowedOrigins).toBeNull();
    expect(loadConfig({ CORS_ALLOWED_ORIGINS: 'https://App.example.com, http://localhost:5173' }).corsAllowedOrigins).toEqual(['https://app.example.com', 'http://localhost:5173']);
    for (const wrong of ['app.example.com', 'https://app.example.com/', 'ftp://files.example.com', ',']) {
      expect(() => loadConfig({ CORS_ALLOWED_ORIGINS: wrong })).toThrow(ConfigError);
    }
  });
});
