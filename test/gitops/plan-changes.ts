// Plans in the shape of `terraform show -json` (Terraform 1.11), built change by change, for the
// review's tests: `change` writes one resource change of ours, `review` reviews a plan holding them.
import { parsePlanJson } from '../../src/gitops/plan-json';
import { type Review, reviewPlan } from '../../src/gitops/review';

/** One entry of `resource_changes` for a resource of this provider. */
export function change(type: string, name: string, actions: string[], before: unknown, after: unknown, extra: Record<string, unknown> = {}): unknown {
  return {
    address: `${type}.${name}`,
    mode: 'managed',
    type,
    name,
    provider_name: 'registry.terraform.io/proxyaccount/proxyaccount',
    change: { actions, before, after, ...extra },
  };
}

/** The review of a plan whose `resource_changes` are `changes`. */
export function review(...changes: unknown[]): Review {
  return reviewPlan(parsePlanJson({ format_version: '1.2', resource_changes: changes }));
}
