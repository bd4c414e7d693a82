// Config validation shared by resources, data sources, ephemeral resources and the provider
// block: required attributes set to null, null elements of collections, attribute validators
// (known, non-null values without null elements only), deprecation warnings and the write-only
// check.
import { CtyBigNumber, isUnknown, isWhollyKnown, type CtyValue } from '../../protocol/cty';
import type { AttributePath, Diagnostic } from '../../protocol/types';
import { errorDiagnostic, formatPath, warningDiagnostic } from './diagnostics';
import { attributeList, attributeToModel, isCtyObject } from './model';
import type { AnyAttribute, AttributeMap } from './schema';

/** Options of {@link validateConfig}. */
export interface ValidateOptions {
  /**
   * Whether the calling Terraform understands write-only attributes (≥ 1.11). When false, a
   * configured write-only attribute is an error: an older Terraform would store it in state.
   * @default true (provider and data-source configs have no write-only attributes)
   */
  readonly writeOnlyAllowed?: boolean;
  /**
   * Refuse numbers a JS number cannot hold exactly (e.g. 12345678901234567890, or 0.1; 2^53 and
   * 1e20 are held exactly). A resource
   * stores its model's numbers, so such a value would come back as the nearest double, which
   * Terraform reports as "Provider produced inconsistent result" (and taints the resource).
   * @default false (the provider block and data sources keep nothing in state)
   */
  readonly exactNumbers?: boolean;
}

/** Validates one configuration object against its attributes. */
export function validateConfig(attributes: AttributeMap, value: CtyValue, opts: ValidateOptions = {}, base: AttributePath = []): Diagnostic[] {
  if (!isCtyObject(value)) return [];
  const out: Diagnostic[] = [];
  for (const [name, a] of attributeList(attributes).entries) {
    const v = value[name] ?? null;
    const path: AttributePath = [...base, { attributeName: name }];
    if (v === null) {
      // Terraform refuses a required argument left out, but not one set to null (often a variable
      // that happens to be null): without this the code would get null where its model promises a
      // value. An unknown value is checked again once Terraform knows it.
      if (a.required) out.push(requiredNull(path));
      continue;
    }
    if (a.deprecated !== undefined) {
      out.push(warningDiagnostic('Deprecated attribute', `Attribute ${formatPath(path)} is deprecated: ${a.deprecated}`, path));
    }
    if (a.writeOnly && opts.writeOnlyAllowed === false) {
      out.push(
        errorDiagnostic(
          'Write-only attribute not supported',
          `Attribute ${formatPath(path)} is write-only, which needs Terraform 1.11 or later; this Terraform would store it in state. Upgrade Terraform or use the ordinary attribute instead.`,
          path,
        ),
      );
      continue;
    }
    // A null element is no more a value than a null attribute (`[a, var.n]`, or a conditional
    // giving null in a `for`): the model promises none, and a null object would reach the code
    // as an object whose every attribute is null. Other elements are still checked below; the
    // attribute's own rules are not, since they are promised collections without nulls.
    const nulls = nullElements(a, v, path);
    out.push(...nulls);
    if (a.nested !== undefined && Array.isArray(v)) {
      const nesting = a.nested.nesting;
      const nested = a.nested.attributes;
      v.forEach((el, i) => {
        if (nesting === 'list') {
          out.push(...validateConfig(nested, el, opts, [...path, { elementKeyInt: i }]));
        } else {
          // A set element has no address Terraform understands, so its problems stay on the set.
          out.push(...validateConfig(nested, el, opts, path).map((d) => ({ ...d, attribute: path })));
        }
      });
    }
    if (nulls.length > 0 || isUnknown(v) || !isWhollyKnown(v)) continue;
    const model = attributeToModel(a, v);
    const ctx = { path, attributeName: name, sensitive: a.sensitive, siblings: value };
    const found = a.validators.flatMap((validator) => validator.validate(model, ctx));
    out.push(...found);
    // The attribute's own rules speak first (they see the nearest double, close enough to say
    // "too large"); a value they pass that cannot be stored exactly is refused here.
    if (found.length === 0 && opts.exactNumbers === true && v instanceof CtyBigNumber && !v.equals(v.toNumber())) {
      out.push(
        errorDiagnostic(
          'Invalid attribute value',
          `Attribute ${formatPath(path)} must be a number a 64-bit float holds exactly, which the provider can store (such as 3, 0.5 or 1e20; not 0.1 or 12345678901234567890); got ${v.text}.`,
          path,
        ),
      );
    }
  }
  return out;
}

function requiredNull(path: AttributePath): Diagnostic {
  return errorDiagnostic(
    'Missing required argument',
    `Attribute ${formatPath(path)} is required, but its value is null (for example a variable that is null); set it to a value.`,
    path,
  );
}

/**
 * The known null elements of a list, set or map attribute, each refused on its own path (a set
 * element has none: its error sits on the set, and a set holds at most one null). Unknown
 * elements pass: Terraform validates again once they are known, before it applies.
 */
function nullElements(a: AnyAttribute, v: CtyValue, path: AttributePath): Diagnostic[] {
  const kind = a.type.kind;
  const where = formatPath(path);
  if (kind === 'list' && Array.isArray(v)) {
    return v.flatMap((el, i) => (el === null ? [nullElement(`Element ${i + 1} of ${where} (${where}[${i}])`, [...path, { elementKeyInt: i }])] : []));
  }
  if (kind === 'set' && Array.isArray(v)) return v.includes(null) ? [nullElement(`An element of ${where}`, path)] : [];
  if (kind === 'map' && isCtyObject(v)) {
    const keys = Object.keys(v).filter((k) => v[k] === null);
    // A sensitive map's keys are part of its value: then neither the message nor the path names one.
    if (a.sensitive) return keys.length > 0 ? [nullElement(`An element of ${where}`, path)] : [];
    return keys.map((k) => nullElement(`Element ${JSON.stringify(k)} of ${where}`, [...path, { elementKeyString: k }]));
  }
  return [];
}

function nullElement(what: string, path: AttributePath): Diagnostic {
  return errorDiagnostic(
    'Null element',
    `${what} is null (for example a variable that is null, or a conditional that gives null); remove it or set it to a value.`,
    path,
  );
}
