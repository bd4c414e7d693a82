// Text handed to Terraform as written, never read as a template: the roster's strings and every
// literal password. Internal: not exported from the package index.

// cdktf's marker of a string token, `${TfToken[TOKEN.12]}` (lib/tokens/private/encoding.js, the
// same in cdktn): a reference that code put into the value, meant to be evaluated.
const TOKEN_MARKER = /(\$\{TfToken\[[a-zA-Z0-9:._-]+\]\})/;

/**
 * `value` as a Terraform literal. Terraform reads every string of the synthesized JSON as a
 * template, so a `${...}` or `%{...}` in it would be evaluated at plan time: a label
 * `${file("/proc/self/environ")}` would read the runner's secrets into the plan and send a value
 * nobody wrote, and a password `Pa$${ss` would reach the account as `Pa${ss`. `$${` and `%%{` are
 * Terraform's escapes for them. Token markers are references that code put in, meant to be
 * evaluated, and kept as they are.
 */
export function literal<T>(value: T): T {
  if (typeof value !== 'string') return value;
  const parts = value.split(TOKEN_MARKER);
  return parts.map((part, i) => (i % 2 === 1 ? part : part.replace(/\$\{/g, () => '$${').replace(/%\{/g, () => '%%{'))).join('') as T;
}
