// The text inside the expressions of a password (an `Fn.*` call's arguments, say), checked at
// synth. literal() writes the text around a reference exactly, but a reference that is an
// expression has text of its own, which cdktf writes into Terraform's expression as quoted strings
// escaping only `${` and line breaks: there a `%%{` reached the account as `%{`, a backslash began
// an escape sequence, and a `%{` or a `"` failed the plan, which printed the password's text.
// Such a password is refused, never shown. Internal: not exported from the package index.
import { DefaultTokenResolver, IPostProcessor, IResolvable, IResolveContext, StringConcat, Token, Tokenization } from 'cdktf';
import { IConstruct } from 'constructs';
import { hidesNumberReference, holdsTokenMarker, splitAtReferences } from './token-markers';
import { Violations } from './validation';

/** Why an expression's text would not reach the account as written (never quoting it). */
const QUOTED_TEXT =
  'a Terraform expression in it (the arguments of an Fn.* call, say) holds text with a backslash, a double quote, a line ' +
  'break or %{, which cdktf writes into a quoted string of the expression without escaping them: Terraform would read an ' +
  'escape sequence or a template directive there, so the account would get other characters, or the plan would fail and print the text';
const DOLLAR_BEFORE_REFERENCE =
  "a Terraform expression in it holds text with a $ just before a reference, which cdktf writes as $${, Terraform's escape: " +
  "the account would get the reference's name as text instead of its value";
const NUMBER_IN_TEXT =
  "a Terraform expression in it holds a number reference inside text, which cdktf writes there as the reference's bare name " +
  '(or as placeholder digits): the account would get that text instead of the number';
const TEMPLATE_TEXT =
  'a reference in it (a Lazy value, say) gives text holding %{, %%{ or $${, which Terraform reads as a template directive or ' +
  'an escape, so the account would get other characters';
// What to do instead: the text around a reference is what terraform-literal.ts writes exactly.
const HOW = "write literal text outside expressions and references, joined to them with plain + (such as 'Pa%{' + " +
  'Fn.lower(secret.stringValue)): the construct writes that text exactly';

// In a quoted string of an expression cdktf writes, what Terraform would not read as written.
const UNSAFE_QUOTED = /["\\\n\r]|%\{/;
// In an object key, which cdktf writes between quotes without any escape, `${` too.
const UNSAFE_KEY = /["\\\n\r]|%\{|\$\{/;

/**
 * `text` (a password as literal() writes it, or a token that is an object, which some functions
 * give) as it is, or, when it holds references, as a token that checks their expressions each time
 * the synth resolves it, and throws, headed by `subject` and naming `path`, when their text would
 * not reach the account as written. The check runs at synth because an expression is final only
 * then (a Lazy value, say), and in the resolution that writes it (cdktf prefixes the error with
 * `Resolution error:`).
 */
export function checkedAtSynth(text: string, subject: string, path: string): string {
  // Some functions (Fn.conditional) give a token that is an object, not a string: the same reference.
  const written = typeof text === 'string' ? text : Token.asString(text);
  // A number token written out in text is a reference too, though the text is no string token.
  return splitAtReferences(written).length > 1 ? Token.asString(new CheckedText(written, subject, path)) : written;
}

/** The text with its references, resolved as it is once checked. */
class CheckedText implements IResolvable {
  // Empty: the creation stack would only add lines to the error, which names the construct.
  public readonly creationStack: string[] = [];

  public constructor(
    private readonly text: string,
    private readonly subject: string,
    private readonly path: string,
  ) {}

  public resolve(context: IResolveContext): string {
    const v = new Violations();
    for (const problem of expressionProblems(this.text, context.scope)) v.add(this.path, `${problem}; ${HOW}`);
    v.throwIfAny(this.subject);
    return this.text;
  }

  public toString(): string {
    return Token.asString(this);
  }
}

/** Why the expressions of the references in `text` would not reach Terraform as written: none when they would. */
function expressionProblems(text: string, scope: IConstruct): Set<string> {
  const problems = new Set<string>();
  const probe = new ArgumentProbe();
  const parts = splitAtReferences(text);
  for (let i = 1; i < parts.length; i += 2) {
    // Resolved as the synth resolves it, but without preparing: preparing registers cross-stack references.
    const written: unknown = Tokenization.resolve(parts[i], { scope, preparing: false, resolver: probe });
    if (typeof written !== 'string') continue;
    scanTemplate(written, 0, false, problems);
    if (written.endsWith('$') && parts[i + 1] === '' && i + 2 < parts.length) problems.add(DOLLAR_BEFORE_REFERENCE);
  }
  for (const argument of probe.given) argumentProblems(argument, problems);
  return problems;
}

/**
 * A resolver that resolves as the default one does, and keeps every value an expression hands on
 * for resolving: the arguments of a function call, an operator or a condition, as given in code.
 * Their text is what cdktf writes into quoted strings; the written expression alone cannot tell a
 * `"` inside such text from the end of the string.
 */
class ArgumentProbe extends DefaultTokenResolver {
  public readonly given: unknown[] = [];

  public constructor() {
    super(new StringConcat());
  }

  public resolveToken(t: IResolvable, context: IResolveContext, postProcessor: IPostProcessor): unknown {
    // The context, with its resolve recording what the token passes to it (writes reach the context itself).
    const recording = new Proxy(context, {
      get: (target, key) => (key === 'resolve' ? (x: unknown) => this.record(target, x) : Reflect.get(target, key)),
    });
    // As the default resolver: the token, then what it returned (not an argument), then post-processing.
    return postProcessor.postProcess(context.resolve(t.resolve(recording)), context);
  }

  private record(context: IResolveContext, value: unknown): unknown {
    this.given.push(value);
    return context.resolve(value);
  }
}

/** Why one argument of an expression, as given in code, would not be written as it is. */
function argumentProblems(argument: unknown, problems: Set<string>): void {
  if (typeof argument === 'string') {
    if (hidesNumberReference(argument)) problems.add(NUMBER_IN_TEXT);
    const parts = splitAtReferences(argument);
    parts.forEach((part, i) => {
      if (i % 2 === 1) {
        if (!part.startsWith('${')) problems.add(NUMBER_IN_TEXT);
      } else {
        if (UNSAFE_QUOTED.test(part)) problems.add(QUOTED_TEXT);
        if (part.endsWith('$') && i < parts.length - 1) problems.add(DOLLAR_BEFORE_REFERENCE);
      }
    });
  } else if (isPlainObject(argument)) {
    // A map's values are arguments of their own; its keys are written as they are.
    if (Object.keys(argument).some((key) => !holdsTokenMarker(key) && UNSAFE_KEY.test(key))) problems.add(QUOTED_TEXT);
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype && !Tokenization.isResolvable(value);
}

/**
 * Scans a template from `from`: the text a reference was written as (`quoted` false, to its end),
 * or a quoted string inside an expression (`quoted`, to its closing `"`). Records what Terraform
 * would not read as text; returns where the scan ended.
 */
function scanTemplate(text: string, from: number, quoted: boolean, problems: Set<string>): number {
  let i = from;
  while (i < text.length) {
    const c = text[i];
    if (quoted && c === '"') return i + 1;
    if (quoted && (c === '\\' || c === '\n' || c === '\r')) {
      problems.add(QUOTED_TEXT);
      i += c === '\\' ? 2 : 1;
    } else if (text.startsWith('${', i)) {
      i = scanExpression(text, i + 2, problems);
    } else if (text.startsWith('%{', i) || text.startsWith('%%{', i)) {
      problems.add(quoted ? QUOTED_TEXT : TEMPLATE_TEXT);
      i += 2;
    } else if (text.startsWith('$${', i)) {
      // Terraform's escape for `${`: in a quoted string cdktf writes it for a `${` of the argument.
      if (!quoted) problems.add(TEMPLATE_TEXT);
      i += 3;
    } else {
      i += 1;
    }
  }
  // A quoted string not closed: a `"` of some text ended one early.
  if (quoted) problems.add(QUOTED_TEXT);
  return i;
}

/** Scans an expression from `from` (just after its `${`) to its closing `}`; returns where it ended. */
function scanExpression(text: string, from: number, problems: Set<string>): number {
  let depth = 0;
  let i = from;
  while (i < text.length) {
    const c = text[i];
    if (c === '"') {
      i = scanTemplate(text, i + 1, true, problems);
      continue;
    }
    if (c === '}' && depth === 0) return i + 1;
    if (c === '{') depth += 1;
    if (c === '}') depth -= 1;
    i += 1;
  }
  problems.add(QUOTED_TEXT);
  return i;
}
