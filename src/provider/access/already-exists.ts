// The per-entry resources' shared "already exists: import it" report.
import { capitalize } from '../framework';
import type { Ctx } from '../types';

/**
 * Reports a create refused because the entry already exists (found in the listing), with the
 * import command that brings it under Terraform instead.
 */
export function reportAlreadyExists(ctx: Ctx, summary: string, object: string, typeName: string, id: string): void {
  ctx.diagnostics.addError(
    summary,
    `${capitalize(object)} already exists (the API refused to add it again), and this configuration does not manage it yet.\n\nTo manage the existing entry with Terraform, import it: terraform import ${typeName}.NAME ${JSON.stringify(id)} (or an import block with id = ${JSON.stringify(id)}).`,
  );
}
