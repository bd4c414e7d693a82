// The one attribute every stored state of this provider holds: `id`. Create, import and read all
// write it (a token create whose outcome is unknown writes the span it ran in), and each type's
// state check compares the attributes that reads and deletes act on with it. Terraform gives null
// for an attribute the stored JSON lacks (UpgradeResourceState fills it in without saying so), so
// a state that lost its id would pass every such check and be acted on as whatever its other
// attributes say: a second token planned while the first stays active, the parent's list cleared
// in place of a sub-account's. A null id is a state edited or damaged. The one exception is the
// bearer token's pending create as an earlier version saved it (no id, no token_id, its record in
// private state, pending-token-create.ts): the token's check lets that through before this one.

/** A stored state's disagreement, as `checkState` reports it. */
export interface StateProblem<A extends string> {
  readonly attribute: A;
  readonly problem: string;
}

/** The problem of a stored state without an `id`, else undefined. */
export function missingId(state: { readonly id: string | null }): StateProblem<'id'> | undefined {
  if (state.id !== null) return undefined;
  return { attribute: 'id', problem: 'id is missing (every state this provider saves has one, naming the object the other attributes are checked against)' };
}
