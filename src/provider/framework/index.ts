// The provider framework's public surface: what resource, data-source and provider modules use.
export { attr, defineSchema } from './schema';
export type {
  AnyAttribute,
  Attribute,
  AttributeMap,
  AttributeOptions,
  ModelOfAttributes,
  ObjectSchema,
  PlanModifier,
  PlanModifierRequest,
  PlanModifierResult,
  PrimitiveKind,
  SchemaDefinition,
  Validator,
  ValidatorContext,
} from './schema';
export { isKnown, type Model, type PlanModel } from './model';
export {
  atMost,
  charset,
  noControlCharacters,
  conflictsWith,
  dateYmd,
  eachElement,
  email,
  greaterThan,
  intAtLeast,
  intBetween,
  ipv4,
  ipv4Problem,
  isIpv4,
  lengthBetween,
  matches,
  oneOf,
  validator,
} from './validators';
export { recomputedOnChange, requiresReplace, requiresReplaceIf, useStateForUnknown } from './plan-modifiers';
export { attributePath, Diagnostics, errorDiagnostic, formatPath, warningDiagnostic } from './diagnostics';
export { attributeNamed, capitalize, diagnosticFromError, snakeCase, type ErrorContext, type ErrorDescriber } from './errors';
export type {
  AttributeName,
  ConfigureContext,
  ModifyPlanContext,
  DataSourceDefinition,
  EphemeralResourceDefinition,
  PlanAdjustment,
  PlanContext,
  ProviderDefinition,
  ResourceContext,
  ResourceDefinition,
  ResourceStateContext,
} from './definition';
export type { PrivateState, PrivateValue } from './private-state';
export type { JsonState, StateUpgrader, StateUpgraders } from './upgrade';
export { FrameworkServer } from './server';
export { UNKNOWN, isUnknown, type Unknown } from '../../protocol/cty';
