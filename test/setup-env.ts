// Tests never read the developer's .env or DATABASE_URL: each builds its own configuration.
process.env.NODE_ENV = 'test';
delete process.env.DATABASE_URL;
