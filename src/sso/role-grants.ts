import { ROLE_SCOPES, type Role, type Scope } from '../domain/scopes.js';

// Who may hand out which role: nobody grants (or takes away) more than they hold. An admin
// invites, changes and removes viewers, members and admins; only a holder of every owner scope
// (an owner, or a key with every scope) grants the owner role or touches an owner.

/** Whether a principal holding `granted` may give (or change, or remove) the role `role`. */
export function mayManageRole(granted: readonly Scope[], role: Role): boolean {
  return ROLE_SCOPES[role].every((scope) => granted.includes(scope));
}
