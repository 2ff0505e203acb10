/**
 * Who may do what, as Django REST Framework's permissions: a question on the
 * request, then one on the row. What a superuser owns is the one rule of
 * ownership.ts, asked here as in the admin.
 */
import { ApiError } from './errors.js';
import type { RequestState } from './types/request.js';
import { mayChange } from './ownership.js';
import type { StoredRecord } from './types/rows.js';
import type { BoundResource, Permission, PermissionAction } from './types/resource.js';

const SAFE_ACTIONS: ReadonlySet<PermissionAction> = new Set(['list', 'retrieve', 'current', 'metadata']);

export const isAuthenticated: Permission = {
  hasPermission: (ctx) => ctx.user !== null,
};

/**
 * Anyone may read; only the row's owner, staff or a superuser may change or
 * delete it (a custom action is a change), and staff who are not superusers
 * not what a superuser owns (ownership.ts).
 */
export const isOwnerOrStaff: Permission = {
  async hasObjectPermission(ctx, action, row, resource) {
    if (SAFE_ACTIONS.has(action)) return true;
    const user = ctx.user;
    if (!user) return false;
    const ownerField = resource.declaration.ownerField;
    if (ownerField !== undefined && row.get(ownerField) === user.id) return true;
    return (user.isStaff || user.isSuperuser) && (await mayChange(user, resource, row));
  },
};

function deny(ctx: RequestState): never {
  throw new ApiError(ctx.user ? 'permission_denied' : 'not_authenticated');
}

export function checkPermissions(
  ctx: RequestState,
  permissions: readonly Permission[],
  action: PermissionAction | null,
): void {
  for (const permission of permissions) {
    if (permission.hasPermission && !permission.hasPermission(ctx, action)) deny(ctx);
  }
}

export async function checkObjectPermissions(
  ctx: RequestState,
  permissions: readonly Permission[],
  action: PermissionAction,
  row: StoredRecord,
  resource: BoundResource,
): Promise<void> {
  for (const permission of permissions) {
    if (permission.hasObjectPermission && !(await permission.hasObjectPermission(ctx, action, row, resource))) deny(ctx);
  }
}

/**
 * Anyone the other permissions let in may read; only staff and superusers
 * may write (create, change, delete, any custom action): Django REST
 * Framework's IsAdminUser for writes. For rows that everyone's rows point to
 * (labels they are filed under, say): changing one changes other people's.
 */
export const isStaffOrReadOnly: Permission = {
  hasPermission(ctx, action) {
    if (action !== null && SAFE_ACTIONS.has(action)) return true;
    const user = ctx.user;
    return user !== null && (user.isStaff || user.isSuperuser);
  },
};
