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
    `${capitalize(object)} already exists (${how}).\n\nWhen this resource is being replaced with create_before_destroy and keeps this key (an IP whose label changes), its own old object holds it: remove create_before_destroy for this change, and plan again. Otherwise, to manage the existing object with Terraform, import it: terraform import ${typeName}.NAME ${JSON.stringify(id)} (or an import block with id = ${JSON.stringify(id)}).`,
  );
}
