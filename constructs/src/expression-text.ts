// The text inside the expressions of a password (an `Fn.*` call's arguments, say), checked at
// synth. literal() writes the text around a reference exactly, but a reference that is an
// expression has text of its own, which cdktf writes into Terraform's expression as quoted strings
// escaping only `${` and line breaks: there a `%%{` reached the account as `%{`, a backslash began
// an escape sequence, and a `%{` or a `"` failed the plan, which printed the password's text.
// A token that is no expression (a Lazy value) is written as Terraform source inside one, and as
// template text in place outside, where its ends can make a template sequence with its neighbours.
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
const NOT_AN_EXPRESSION =
  'a Terraform expression in it (the arguments of an Fn.* call, say) holds a token that is no expression (a Lazy value or ' +
  'Token.asAny, say) and gives a value of its own, which cdktf writes there as Terraform source, not as text: Terraform ' +
  'would read a number or a name there (0123 as 123), so the account would get other characters, or the plan would fail and print it';
const JOINED_TEXT =
  'a reference in it (a Lazy value, say) gives text that ends with $ or % where the text after it starts with {, or ends ' +
  'with $ just before a reference: written together they make ${, %{ or $${, which Terraform reads as a template ' +
  'sequence, so the account would get other characters';
const TEMPLATE_TEXT =
  'a reference in it (a Lazy value, say) gives text holding %{, %%{ or $${, which Terraform reads as a template directive or ' +
  'an escape, so the account would get other characters';
// What to do instead: the text around a reference is what terraform-literal.ts writes exactly.
const HOW = "write literal text outside expressions and references, joined to them with plain + (such as 'Pa%{' + " +
  'Fn.lower(secret.stringValue)): the construct writes that text exactly';
// cdktf writes a list's items by their index in the list with the missing ones dropped: after one, each
// item is written a place early and the last is lost (`[cfg.prefix, secret]` became `[]`).
const MISSING_VALUE =
  'a Terraform expression in it holds undefined or null (an optional setting left out, say) as an item of a list, an ' +
  'argument of an Fn.* call or a branch of a condition, which cdktf does not write as given: in a list it writes the items ' +
  'after it a place early and drops the last, so the account would get another password, or the plan would fail and print the text';
const HOW_MISSING = 'leave the item out of the list in code (with a spread or filter) or give it a value';
// cdktf 0.21 writes an operator's right operand only when it is truthy (CDK Terrain writes it as given).
const FALSY_OPERAND =
  "a Terraform expression in it holds an operator (Op.*) whose right operand is '', 0, false or null, which this version of cdktf " +
  'writes as `undefined` (Op.sub(x, 0) as -x): the plan would fail and print the text, or the account would get another value';
const HOW_FALSY = "make that value the left operand (Op.neq('', x) for Op.neq(x, '')), use Fn.coalesce([x, 'fallback']) for " +
  'a fallback to an empty value, or leave out an operation that changes nothing (Op.sub(x, 0), Op.or(x, false))';
// What to do instead of what the check refuses, when not HOW.
const ADVICE = new Map([[MISSING_VALUE, HOW_MISSING], [FALSY_OPERAND, HOW_FALSY]]);

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
    for (const problem of expressionProblems(this.text, context.scope)) v.add(this.path, `${problem}; ${ADVICE.get(problem) ?? HOW}`);
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
  const probe = new ArgumentProbe(problems);
  // The password as written: its literal text (as literal() wrote it) and each reference's text in turn.
  let joined = '';
  splitAtReferences(text).forEach((part, i) => {
    let piece = part;
    if (i % 2 === 1) {
      // Resolved as the synth resolves it, but without preparing: preparing registers cross-stack references.
      const written: unknown = Tokenization.resolve(part, { scope, preparing: false, resolver: probe });
      piece = typeof written === 'string' ? written : String(written);
      scanTemplate(piece, 0, false, problems);
    }
    if (joinsIntoSequence(joined, piece)) problems.add(JOINED_TEXT);
    joined += piece;
  });
  for (const argument of probe.given) argumentProblems(argument, problems);
  return problems;
}

/**
 * True when `before` and `after`, written one after the other, make a template sequence across the
 * join that neither holds: `$` or `%` and a `{` (`${`, `%{`, `$${`, `%%{`), or `$` and a
 * reference's `${` (`$${`, Terraform's escape). Each part alone was checked; a reference that gives
 * text in place (a Lazy value) can end or start one.
 */
function joinsIntoSequence(before: string, after: string): boolean {
  const last = before.at(-1);
  return ((last === '$' || last === '%') && after.startsWith('{')) || (last === '$' && after.startsWith('${'));
}

/**
 * A resolver that resolves as the default one does, and keeps every value an expression hands on
 * for resolving: the arguments of a function call, an operator or a condition, as given in code.
 * Their text is what cdktf writes into quoted strings; the written expression alone cannot tell a
 * `"` inside such text from the end of the string. Within an expression it also refuses a token
 * that is no expression (a Lazy value) and gives a value of its own: cdktf writes that as
 * Terraform source, not as text (a Lazy's `0123` became the number 123, its `abc` a reference).
 */
class ArgumentProbe extends DefaultTokenResolver {
  public readonly given: unknown[] = [];
  // How many expressions are being resolved: a token resolved within one is written into its source.
  private depth = 0;

  public constructor(private readonly problems: Set<string>) {
    super(new StringConcat());
  }

  public resolveToken(t: IResolvable, context: IResolveContext, postProcessor: IPostProcessor): unknown {
    // As the default resolver: the token, then what it returned (not an argument), then post-processing.
    if (!isExpression(t)) {
      const value: unknown = t.resolve(context);
      if (this.depth > 0 && !isOneReference(value)) this.problems.add(NOT_AN_EXPRESSION);
      return postProcessor.postProcess(context.resolve(value), context);
    }
    // A function call's arguments are read where cdktf stored them, its own quotes taken off; any
    // other expression's as it resolves them: the context, with its resolve recording what the
    // token passes to it (writes reach the context itself).
    const call = functionCall(t);
    // A call's arguments are written as a list's items are, so one that is missing is one too.
    if (call) this.given.push(givenArguments(call));
    const passed: unknown[] = [];
    const recording = call ? context : new Proxy(context, {
      get: (target, key) => (key === 'resolve' ? (x: unknown) => this.record(target, x, passed) : Reflect.get(target, key)),
    });
    this.depth += 1;
    try {
      return postProcessor.postProcess(context.resolve(t.resolve(recording)), context);
    } finally {
      this.depth -= 1;
      if (dropsRightOperand(t, passed)) this.problems.add(FALSY_OPERAND);
    }
  }

  private record(context: IResolveContext, value: unknown, passed: unknown[]): unknown {
    this.given.push(value);
    passed.push(value);
    return context.resolve(value);
  }
}

/**
 * True when `t` is an operator whose right operand is given but was never passed on to be written
 * (`passed`, what it resolved): cdktf 0.21 skips a falsy one (`''`, 0, false, null), writing
 * `undefined` in its place, or `Op.sub(x, 0)` as `-x`. Asking the writer itself, not its version,
 * keeps a fixed one (CDK Terrain's) free. In `passed` a right operand cannot be told apart from the
 * same value in the left one: the same left operand is refused in any writer (`Op.eq('', '')` means
 * nothing anyway), and one in a list literal on the left (`Op.eq([''], '')`, no text) goes unseen.
 */
function dropsRightOperand(t: IResolvable, passed: unknown[]): boolean {
  const { operator, left, right } = t as { operator?: unknown; left?: unknown; right?: unknown };
  if (typeof operator !== 'string' || right === undefined || right) return false;
  return !passed.includes(right) || left === right;
}

/** True for cdktf's expressions (a reference, a function call, a condition...): a Lazy value is none. */
function isExpression(t: IResolvable): boolean {
  return typeof (t as { resolveArg?: unknown }).resolveArg === 'function';
}

/** True when `value` stands for one reference and nothing else: a token, or a string or number marking one. */
function isOneReference(value: unknown): boolean {
  if (typeof value !== 'string') return Tokenization.isResolvable(value) || Token.isUnresolved(value);
  const fragments = Tokenization.reverseString(value);
  return fragments.length === 1 && fragments.firstToken !== undefined;
}

/** A function call of cdktf's (its name and arguments as stored), or undefined for another token. */
function functionCall(t: IResolvable): { name: string; args: unknown[] } | undefined {
  const { name, args } = t as { name?: unknown; args?: unknown };
  return typeof name === 'string' && Array.isArray(args) ? { name, args } : undefined;
}

// Where cdktf quotes a plain string argument itself when the Fn.* call is made (listOf in
// functions/helpers.js, for list and variadic parameters: `Fn.coalesce([s, 'pw'])` stores `"pw"`),
// from functions/terraform-functions.generated.js, the same in cdktf and cdktn. Everywhere else it
// stores the string as given, and writes one that starts and ends with `"` without adding quotes
// (`Fn.tolist(['"x"'])` writes `["x"]`): only these quotes are cdktf's, the others the user's.
// The arguments from this index on, each quoted when it is a string:
const QUOTED_FROM = new Map([
  ['coalesce', 0], ['coalescelist', 0], ['concat', 0], ['merge', 0], ['setproduct', 0], ['try', 0],
  ['format', 1], ['formatlist', 1], ['join', 1], ['lookup', 2],
]);
// The arguments at these indexes, lists whose string items are each quoted:
const QUOTED_ITEMS = new Map([
  ['alltrue', [0]], ['anytrue', [0]], ['chunklist', [0]], ['compact', [0]], ['distinct', [0]], ['setsubtract', [0, 1]],
  ['sort', [0]], ['zipmap', [0]],
]);

/** A function call's arguments as given in code: the stored ones, without the quotes cdktf added. */
function givenArguments({ name, args }: { name: string; args: unknown[] }): unknown[] {
  const from = QUOTED_FROM.get(name) ?? args.length;
  const lists = QUOTED_ITEMS.get(name) ?? [];
  return args.map((arg, i) => {
    if (i >= from) return unquoted(arg);
    return lists.includes(i) && Array.isArray(arg) ? arg.map(unquoted) : arg;
  });
}

/** A string argument cdktf quoted, without its quotes (a token it leaves as it is). */
function unquoted(arg: unknown): unknown {
  return typeof arg === 'string' && arg.length >= 2 && arg.startsWith('"') && arg.endsWith('"') ? arg.slice(1, -1) : arg;
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
  } else if (argument === undefined) {
    // Given to an expression (a branch of a condition), cdktf writes it as the name `undefined`.
    problems.add(MISSING_VALUE);
  } else if (Array.isArray(argument)) {
    // By index, so that a hole of a sparse list counts too. A null item is written as nothing (or as
    // `null`, which no function reading the list accepts in place of text).
    for (let i = 0; i < argument.length; i++) {
      if (argument[i] === null) problems.add(MISSING_VALUE);
      else argumentProblems(argument[i], problems);
    }
  } else if (isPlainObject(argument)) {
    // A map's keys are written as they are, between quotes; its values are arguments of their own,
    // except an undefined one: cdktf leaves out its key, as JavaScript does.
    for (const [key, value] of Object.entries(argument)) {
      if (!holdsTokenMarker(key) && UNSAFE_KEY.test(key)) problems.add(QUOTED_TEXT);
      if (value !== undefined) argumentProblems(value, problems);
    }
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
