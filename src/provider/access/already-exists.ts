// The per-entry resources' shared "already exists: import it" report.
import { capitalize } from '../framework';
import type { Ctx } from '../types';

/**
 * Reports a create refused because the object already exists (found in the listing, or read
 * before creating), with the import command that brings it under Terraform instead. `how` says
 * how that was found.
 */
export function reportAlreadyExists(ctx: Ctx, summary: string, object: string, typeName: string, id: string, how = 'the API refused to add it again'): void {
  ctx.diagnostics.addError(
    summary,
    `${capitalize(object)} already exists (${how}), and this configuration does not manage it yet.\n\nTo manage the existing object with Terraform, import it: terraform import ${typeName}.NAME ${JSON.stringify(id)} (or an import block with id = ${JSON.stringify(id)}).`,
  );
}
