import { HcnError } from '@hcn/contracts';

/** Roles of API tokens, weakest first. */
export const ROLES = ['viewer', 'operator', 'admin'] as const;

/** A role of an API token. */
export type Role = (typeof ROLES)[number];

/** Who calls the user API: a token's name, role and the namespaces it may touch (`*` = all). */
export interface Principal {
  readonly name: string;
  readonly role: Role;
  readonly namespaces: readonly string[];
}

/** True when `principal` holds `role` or a stronger one. */
export function hasRole(principal: Principal, role: Role): boolean {
  return ROLES.indexOf(principal.role) >= ROLES.indexOf(role);
}

/** True when `principal` may see and act in `namespace`. */
export function inNamespace(principal: Principal, namespace: string): boolean {
  return principal.namespaces.includes('*') || principal.namespaces.includes(namespace);
}

/**
 * Refuses a principal outside `namespace`. The code is NOT_FOUND-like on purpose for reads of single objects
 * (callers pass `hide`), so a token of namespace X cannot even learn that a workload of Y exists.
 */
export function requireNamespace(
  principal: Principal,
  namespace: string,
  hide?: { code: string; message: string },
): void {
  if (inNamespace(principal, namespace)) return;
  if (hide) throw new HcnError(hide.code, hide.message);
  throw new HcnError(
    'AUTH.NAMESPACE_FORBIDDEN',
    `Token ${principal.name} may not act in namespace ${namespace}`,
    {
      namespace,
    },
  );
}

/** Namespaces a principal may list: `*` or its own. */
export function visibleNamespaces(principal: Principal): string[] | '*' {
  return principal.namespaces.includes('*') ? '*' : [...principal.namespaces];
}
