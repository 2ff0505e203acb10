/**
 * The admin's audit log: who created, edited or deleted which row, when, and
 * what changed. Written by DeclaredResource inside each write's transaction
 * (a bulk delete is one delete per row there, all in one transaction, so one
 * entry per row), into the framework's own table (db/audit-table.ts).
 * An edit that changed no value leaves no entry.
 * Secrets never reach it: a hidden field of the declaration (a password
 * hash, a remember token, a token's hash) is logged as "changed" on an edit
 * and as a mask on a create or a delete, never by its value; a typed
 * password is only ever the hash it became.
 */
import { DataTypes, type Sequelize, type Transaction } from 'sequelize';
import { AUDIT_LOG_TABLE_NAME } from '../db/audit-table.js';
import { clock } from '../clock.js';
import type { StaffMember } from './staff.js';
import type { RowModel } from '../types/rows.js';
import type { BoundResource } from '../types/resource.js';

export type AuditAction = 'create' | 'edit' | 'delete';

/** What an edit stores for a secret that changed, and a create or delete for a secret that is set. */
export const SECRET_CHANGED = 'changed';
export const SECRET_MASK = '••••';

export type AuditChange = { old: unknown; new: unknown } | unknown;

/** One write as the resource saw it: the row's admin params before and after, and the values it wrote. */
export interface AuditedWrite {
  action: AuditAction;
  staff: StaffMember;
  bound: BoundResource;
  id: string;
  title: string;
  before: Readonly<Record<string, unknown>> | null;
  after: Readonly<Record<string, unknown>> | null;
  /** What the write set (a hidden field among them when the policy set it, e.g. a new password's hash). */
  written: Readonly<Record<string, unknown>>;
}

export interface AuditTrail {
  /** One entry, inside the write's own transaction. */
  record(write: AuditedWrite, transaction: Transaction): Promise<void>;
}

const MAX_TITLE = 255;
const MODEL_NAME = '__AdminAuditEntry';

/** A value as JSON keeps it: dates as ISO text, so that two readings of the same row compare equal. */
function plain(value: unknown): unknown {
  return value === undefined ? null : (JSON.parse(JSON.stringify(value)) as unknown);
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(plain(a)) === JSON.stringify(plain(b));

/**
 * The fields a write changed (old → new, on an edit) or the row's values (on
 * a create or a delete). Computed fields follow the others and are left out;
 * hidden fields are masked.
 */
export function auditChanges(write: AuditedWrite): Record<string, AuditChange> {
  const changes: Record<string, AuditChange> = {};
  for (const [name, field] of Object.entries(write.bound.declaration.fields)) {
    if (field.kind === 'computed') continue;
    if (field.hidden) {
      if (write.action === 'edit' ? name in write.written : true) changes[name] = write.action === 'edit' ? SECRET_CHANGED : SECRET_MASK;
      continue;
    }
    const before = write.before?.[name];
    const after = write.after?.[name];
    if (write.action === 'edit') {
      if (!same(before, after)) changes[name] = { old: plain(before), new: plain(after) };
    } else {
      changes[name] = plain(write.action === 'create' ? after : before);
    }
  }
  return changes;
}

/**
 * Whether an edit's changes hold more than its update time: every save
 * moves that (Django's auto_now), so alone it says nothing was changed, and
 * such an edit leaves no entry.
 */
function changedAnything(bound: BoundResource, changes: Readonly<Record<string, AuditChange>>): boolean {
  return Object.keys(changes).some((name) => name !== bound.timestamps.updated);
}

/** The audit log's model, defined once per database. */
export function auditModel(sequelize: Sequelize): RowModel {
  if (sequelize.isDefined(MODEL_NAME)) return sequelize.model(MODEL_NAME) as RowModel;
  return sequelize.define(
    MODEL_NAME,
    {
      id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
      created_at: { type: DataTypes.DATE, allowNull: false },
      account_id: { type: DataTypes.INTEGER, allowNull: false },
      account: { type: DataTypes.STRING(255), allowNull: false },
      action: { type: DataTypes.STRING(16), allowNull: false },
      resource: { type: DataTypes.STRING(128), allowNull: false },
      record_id: { type: DataTypes.STRING(64), allowNull: false },
      record_title: { type: DataTypes.STRING(255), allowNull: false },
      changes: { type: DataTypes.TEXT, allowNull: false },
    },
    { tableName: AUDIT_LOG_TABLE_NAME, timestamps: false },
  ) as RowModel;
}

/** The trail the admin writes to: one row per write. */
export class AuditLog implements AuditTrail {
  constructor(readonly model: RowModel) {}

  async record(write: AuditedWrite, transaction: Transaction): Promise<void> {
    const changes = auditChanges(write);
    if (write.action === 'edit' && !changedAnything(write.bound, changes)) return;
    const entry = {
      created_at: clock().now(),
      account_id: Number(write.staff.id),
      account: write.staff.email,
      action: write.action,
      resource: write.bound.declaration.table,
      record_id: write.id,
      record_title: write.title.slice(0, MAX_TITLE),
      changes: JSON.stringify(changes, null, 2),
    };
    await this.model.create(entry, { transaction });
  }
}

const isEditChange = (change: AuditChange): change is { old: unknown; new: unknown } =>
  typeof change === 'object' && change !== null && 'old' in change && 'new' in change;

/** An entry's changes as people read them, a line a field: `title: "Hello" → "Hi"` for an edit, `title: "Hello"` otherwise. */
export function readableChanges(action: string, stored: string): string {
  let changes: Record<string, AuditChange>;
  try {
    changes = JSON.parse(stored) as Record<string, AuditChange>;
  } catch {
    return stored;
  }
  const text = (value: unknown): string => (value === SECRET_CHANGED || value === SECRET_MASK ? String(value) : JSON.stringify(value));
  return Object.entries(changes)
    .map(([name, change]) => (action === 'edit' && isEditChange(change) ? `${name}: ${text(change.old)} → ${text(change.new)}` : `${name}: ${text(change)}`))
    .join('\n');
}
