// Attributes every authoritative list resource has in common, and the plan values they share.
import { attr } from '../framework';

/** `removed_entries`: what the latest change to the list removes from the account, shown in plans. */
export const REMOVED_ENTRIES_ATTRIBUTE = attr.set('string', {
  description:
    'The entries the latest change to this list removes from the account, as the plan shows them: on create, every entry the account already had that the configuration does not declare; on update, the declared entries dropped. For review; it keeps its value until the list changes again. A new list whose owner is known only at apply plans it empty, and Terraform stops its apply rather than remove an entry it did not show; when the entries are known only at apply, it is known only then too, and the plan warns naming every entry the list holds.',
  computed: true,
});

/**
 * The planned values every list computes, under the attribute names every list schema shares:
 * `id` (on create) and `removed_entries` (once known). Each list passes it as its `toPlan`.
 */
export function listPlanValues(values: { readonly id?: string; readonly removed?: readonly string[] }): { id?: string; removed_entries?: string[] } {
  return { ...(values.id === undefined ? {} : { id: values.id }), ...(values.removed === undefined ? {} : { removed_entries: [...values.removed] }) };
}
