// Text as Terraform holds it. Terraform keeps every string in Unicode normal form C (cty
// normalises each value it is given), while the API keeps a label exactly as it was sent: a
// label written outside Terraform with a decomposed accent (`e` and U+0301) reads back composed
// in state and configuration. Compared byte for byte with the API's, it would differ forever.

/** Whether two strings are the same text once both are in normal form C, as Terraform would hold them. */
export function sameText(a: string, b: string): boolean {
  return a === b || a.normalize('NFC') === b.normalize('NFC');
}
