// Built-in plan modifiers. They run in PlanResourceChange (create and update, never destroy),
// after defaults, in the order the attribute lists them.
import { ctyEqual, isUnknown, UNKNOWN, type CtyValue } from '../../protocol/cty';
import type { PlanModifier, PlanModifierRequest } from './schema';

/** A change of this attribute replaces the object (destroy, then create). */
export function requiresReplace(): PlanModifier {
  return requiresReplaceIf('changing it replaces the object', () => true);
}

/**
 * Like {@link requiresReplace}, but only when `when(prior, planned)` says so (both known or
 * planned unknown); e.g. only when a value is cleared.
 */
export function requiresReplaceIf(description: string, when: (prior: CtyValue, planned: CtyValue) => boolean): PlanModifier {
  return {
    description,
    modify(req: PlanModifierRequest) {
      if (req.creating) return {};
      if (!isUnknown(req.planned) && ctyEqual(req.prior, req.planned, req.type)) return {};
      return when(req.prior, req.planned) ? { requiresReplace: true } : {};
    },
  };
}

/**
 * On update, plan the prior value instead of "known after apply" for a computed attribute the
 * configuration leaves null: use it for values that never change once set (ids, creation
 * times, secrets returned once).
 */
export function useStateForUnknown(): PlanModifier {
  return {
    description: 'keeps its value from the prior state once known',
    modify(req: PlanModifierRequest) {
      if (req.creating || !isUnknown(req.planned) || req.prior === null || isUnknown(req.prior)) return {};
      // A configured unknown must stay unknown: only fill what the provider itself computes.
      if (isUnknown(req.config)) return {};
      return { planned: req.prior };
    },
  };
}

/**
 * On update, plan "known after apply" for a computed attribute the configuration leaves null
 * whenever the object changes: for values the API recomputes on every edit. (Without it, such
 * an attribute keeps its prior value, which is what Terraform proposes.)
 */
export function recomputedOnChange(): PlanModifier {
  return {
    description: 'recomputed by the API whenever the object changes',
    modify(req: PlanModifierRequest) {
      if (req.creating || !req.objectChanged || req.config !== null) return {};
      return { planned: UNKNOWN };
    },
  };
}
