/**
 * What the person running a session has allowed: the permission mode and the
 * scoped "allow for this session" grants (`Bash:npm test`). One small object
 * the tool loop reads and the session saves, instead of three callbacks.
 */
import type { PermissionMode } from './types.js';

/** The session's permission mode and scoped grants; `onChange` persists them. */
export class SessionGrants {
  mode: PermissionMode;
  readonly #scopes = new Set<string>();
  readonly #onChange: () => void;

  constructor(mode: PermissionMode, onChange: () => void) {
    this.mode = mode;
    this.#onChange = onChange;
  }

  /** True when "allow for this session" covers `scope`. */
  allows(scope: string): boolean {
    return this.#scopes.has(scope);
  }

  /** Remembers an "allow for this session" grant and saves it. */
  allow(scope: string): void {
    this.#scopes.add(scope);
    this.#onChange();
  }

  /** Takes back an "allow for this session" grant and saves; false when there was none. */
  revoke(scope: string): boolean {
    if (!this.#scopes.delete(scope)) return false;
    this.#onChange();
    return true;
  }

  /** Restores grants loaded with a saved session (no save). */
  restore(scopes: readonly string[]): void {
    for (const scope of scopes) this.#scopes.add(scope);
  }

  /** The grants, for the saved record. */
  list(): string[] {
    return [...this.#scopes];
  }
}
