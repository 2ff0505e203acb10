/**
 * The same-stack reference's database work (bench/reference.ts): the sqlite3
 * package directly, one connection per process (as Sequelize keeps one),
 * the server's pragmas, every query a statement prepared once.
 */
import sqlite3 from 'sqlite3';

/** Dates as Sequelize stores them in SQLite: `2025-01-01 00:00:01.000 +00:00`. */
export function storedDate(date: Date): string {
  return date.toISOString().replace('T', ' ').replace('Z', ' +00:00');
}

/** A stored date back: `YYYY-MM-DD HH:MM:SS.SSS +HH:MM` is an ISO date once the spaces go. */
export function parseStoredDate(text: string): Date {
  const [day, time, offset] = text.split(' ');
  return new Date(`${day}T${time}${offset ?? 'Z'}`);
}

export interface TokenRow {
  id: number;
  token: string;
  abilities: string | null;
  last_used_at: string | null;
  expires_at: string | null;
  user_id: number;
  is_active: number | null;
}

export interface UserRow {
  id: number;
  password: string;
  is_active: number;
}

export interface CommentRow {
  id: number;
  title: string;
  body: string;
  updated_at: string;
}

export interface SessionRow {
  data: string | null;
  expires: string | null;
}

function open(file: string): Promise<sqlite3.Database> {
  return new Promise((resolve, reject) => {
    const db = new sqlite3.Database(file, sqlite3.OPEN_READWRITE, (error) => (error ? reject(error) : resolve(db)));
  });
}

function exec(db: sqlite3.Database, sql: string): Promise<void> {
  return new Promise((resolve, reject) => db.exec(sql, (error) => (error ? reject(error) : resolve())));
}

function prepare(db: sqlite3.Database, sql: string): Promise<sqlite3.Statement> {
  return new Promise((resolve, reject) => {
    const statement = db.prepare(sql, (error: Error | null) => (error ? reject(error) : resolve(statement)));
  });
}

type Param = string | number | null;

function all<T>(statement: sqlite3.Statement, params: Param[]): Promise<T[]> {
  return new Promise((resolve, reject) => statement.all<T>(params, (error, rows) => (error ? reject(error) : resolve(rows))));
}

/**
 * The one row of a lookup by key. Through all(), not Statement#get(): get()
 * leaves the statement open after its row, and with it a read transaction
 * whose snapshot makes this connection's next write fail (SQLITE_BUSY) once
 * another process has written; all() steps to the end, and a statement without
 * parameters to bind is reset each time too.
 */
async function get<T>(statement: sqlite3.Statement, params: Param[]): Promise<T | undefined> {
  return (await all<T>(statement, params))[0];
}

/** The changed row's id and how many rows changed. */
function run(statement: sqlite3.Statement, params: Param[]): Promise<{ lastID: number; changes: number }> {
  return new Promise((resolve, reject) =>
    statement.run(params, function (this: sqlite3.RunResult, error: Error | null) {
      if (error) reject(error);
      else resolve({ lastID: this.lastID, changes: this.changes });
    }),
  );
}

export interface ReferenceDatabase {
  /** The token row `id` with its owner's is_active (LEFT JOIN: a token of a deleted user has none). */
  token(id: number): Promise<TokenRow | undefined>;
  /** last_used_at = now, when it is null or older than `threshold` (the server's once-a-minute rule, also in the UPDATE). */
  touchToken(id: number, now: Date, threshold: Date): Promise<void>;
  userByUsername(username: string): Promise<UserRow | undefined>;
  user(id: number): Promise<UserRow | undefined>;
  session(sid: string): Promise<SessionRow | undefined>;
  /** One comment with its owner's username. */
  comment(id: number): Promise<(CommentRow & { owner: string | null }) | undefined>;
  /** The count the server shows: the `row_counts` row the migrations' triggers keep. */
  count(): Promise<number>;
  /** A page in the paginated site's order: newest update first, then the highest id. */
  page(limit: number, offset: number): Promise<CommentRow[]>;
  /** Every comment by primary key, the token site's order. */
  everyComment(): Promise<CommentRow[]>;
  insertComment(title: string, body: string, userId: number, now: Date): Promise<number>;
}

export async function openReferenceDatabase(file: string): Promise<ReferenceDatabase> {
  const db = await open(file);
  // The server's connection settings (src/db/database.ts).
  await exec(db, 'PRAGMA busy_timeout = 10000; PRAGMA foreign_keys = ON; PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL');
  const statements = {
    token: await prepare(
      db,
      'SELECT t.id, t.token, t.abilities, t.last_used_at, t.expires_at, t.tokenable_id AS user_id, u.is_active FROM personal_access_tokens t LEFT JOIN users u ON u.id = t.tokenable_id WHERE t.id = ?',
    ),
    touchToken: await prepare(db, 'UPDATE personal_access_tokens SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at <= ?)'),
    userByUsername: await prepare(db, 'SELECT id, password, is_active FROM users WHERE username = ?'),
    user: await prepare(db, 'SELECT id, password, is_active FROM users WHERE id = ?'),
    session: await prepare(db, 'SELECT data, expires FROM sessions WHERE sid = ?'),
    comment: await prepare(db, 'SELECT c.id, c.title, c.body, c.updated_at, u.username AS owner FROM comments c LEFT JOIN users u ON u.id = c.user_id WHERE c.id = ?'),
    count: await prepare(db, "SELECT row_count FROM row_counts WHERE table_name = 'comments'"),
    page: await prepare(db, 'SELECT id, title, body, updated_at FROM comments ORDER BY updated_at DESC, id DESC LIMIT ? OFFSET ?'),
    everyComment: await prepare(db, 'SELECT id, title, body, updated_at FROM comments ORDER BY id ASC'),
    insertComment: await prepare(db, 'INSERT INTO comments (title, body, user_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?)'),
  };
  return {
    token: (id) => get<TokenRow>(statements.token, [id]),
    touchToken: async (id, now, threshold) => {
      await run(statements.touchToken, [storedDate(now), id, storedDate(threshold)]);
    },
    userByUsername: (username) => get<UserRow>(statements.userByUsername, [username]),
    user: (id) => get<UserRow>(statements.user, [id]),
    session: (sid) => get<SessionRow>(statements.session, [sid]),
    comment: (id) => get(statements.comment, [id]),
    count: async () => Number((await get<{ row_count: number }>(statements.count, []))?.row_count ?? 0),
    page: (limit, offset) => all<CommentRow>(statements.page, [limit, offset]),
    everyComment: () => all<CommentRow>(statements.everyComment, []),
    insertComment: async (title, body, userId, now) => {
      const stamp = storedDate(now);
      return (await run(statements.insertComment, [title, body, userId, stamp, stamp])).lastID;
    },
  };
}
