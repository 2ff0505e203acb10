/**
 * The framework's public entry (`import … from 'declarest'`): the declaration
 * language and what an application's own code touches. Re-exports only;
 * nothing else of `src/` is importable from outside (package.json `exports`).
 * Its surface is recorded in public-api.md and checked (`npm run api:check`).
 */
export { defineResource } from './resource.js';
export type {
  AbilityDeclaration,
  ActionName,
  AdminAction,
  AdminExposure,
  Direction,
  FieldRules,
  ListQuery,
  Lookup,
  Ordering,
  PageSizes,
  Pagination,
  PaginationStyle,
  TokenModelContract,
  UserModelContract,
  Wrap,
} from './types/declaration.js';
export type { ActionDeclaration, Permission, PermissionAction, ResourceActions, ResourceDeclaration, SiteExposure } from './types/resource.js';
export type { Row } from './types/rows.js';
export type { RequestState } from './types/request.js';
export { field, isColumn } from './fields.js';
export type {
  BooleanField,
  ColumnField,
  ComputedField,
  ComputedType,
  DateField,
  DateTimeField,
  DecimalField,
  EnumField,
  FieldDeclaration,
  IdField,
  IntegerField,
  JoinTable,
  JsonField,
  ManyToManyField,
  ReferenceField,
  StringField,
} from './fields.js';
export { isAuthenticated, isOwnerOrStaff, isStaffOrReadOnly } from './permissions.js';
export { refusal } from './hooks.js';
export type { Hook, HookContext, HookName, ResourceHooks, ValidationContext, Validator } from './hooks.js';
export type { ActionContext, ActionMethod, ActionResult } from './actions/declaration.js';
export type { AuthUser } from './types/auth.js';
export { defineSeeder } from './db/seeders.js';
export type { DemoAccount, SeedContext, Seeder, SeedResult } from './db/seeders.js';
export { clock, monotonicClock, setClock } from './clock.js';
export type { Clock } from './clock.js';
export { credentialsRefused, parseError } from './policies.js';
export type {
  Authenticated,
  Authenticator,
  Parser,
  ParserContext,
  PolicyList,
  RenderContext,
  RenderedAnswer,
  RenderedView,
  Renderer,
  ResourcePolicies,
  UserDirectory,
} from './policy-types.js';
