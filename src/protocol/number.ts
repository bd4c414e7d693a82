// cty numbers are arbitrary-precision decimals. JS numbers carry the ones a float64 holds exactly;
// CtyBigNumber carries the rest with their decimal text, so "0.1" from HCL goes back to Terraform
// as "0.1" and not as the float64 nearest to it (which Terraform would see as a different value).

const DECIMAL = /^(-)?(0|[1-9]\d*)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/** A decimal as sign, digits (no trailing zeros) and power of ten: value = ±digits × 10^exp. */
interface Decimal {
  readonly negative: boolean;
  readonly digits: bigint;
  readonly exp: number;
}

function parseDecimal(text: string): Decimal | undefined {
  const m = DECIMAL.exec(text);
  if (!m) return undefined;
  const frac = m[3] ?? '';
  let digitText = (m[2]! + frac).replace(/^0+(?=\d)/, '');
  let exp = Number(m[4] ?? '0') - frac.length;
  if (!Number.isSafeInteger(exp)) return undefined;
  const trimmed = digitText.replace(/0+$/, '');
  if (trimmed === '') return { negative: false, digits: 0n, exp: 0 };
  exp += digitText.length - trimmed.length;
  digitText = trimmed;
  return { negative: m[1] === '-', digits: BigInt(digitText), exp };
}

/** The exact binary value of a finite double: ±mantissa × 2^exp2. */
function doubleParts(x: number): { negative: boolean; mantissa: bigint; exp2: number } {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const hi = view.getUint32(0);
  const lo = view.getUint32(4);
  const biased = (hi >>> 20) & 0x7ff;
  let mantissa = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  let exp2 = biased - 1075;
  if (biased === 0) exp2 = -1074;
  else mantissa |= 1n << 52n;
  return { negative: hi >>> 31 === 1, mantissa, exp2 };
}

/** Whether the decimal equals the finite double exactly. */
function decimalEqualsDouble(d: Decimal, x: number): boolean {
  if (d.digits === 0n) return x === 0;
  if (x === 0) return false;
  const p = doubleParts(x);
  if (p.negative !== d.negative) return false;
  // No double has a decimal expansion outside this range; also keeps the bigints small.
  if (d.exp > 310 || d.exp < -1100) return false;
  const left = d.digits * 10n ** BigInt(Math.max(d.exp, 0)) * 2n ** BigInt(Math.max(-p.exp2, 0));
  const right = p.mantissa * 2n ** BigInt(Math.max(p.exp2, 0)) * 10n ** BigInt(Math.max(-d.exp, 0));
  return left === right;
}

/** An arbitrary-precision cty number that a JS number cannot hold exactly; keeps its decimal text. */
export class CtyBigNumber {
  /** The decimal text as received or given, e.g. "0.1" or "18446744073709551615". */
  readonly text: string;
  readonly #decimal: Decimal;

  private constructor(text: string, decimal: Decimal) {
    this.text = text;
    this.#decimal = decimal;
    Object.freeze(this);
  }

  /** Parses decimal text (optionally with an exponent); throws TypeError on anything else. */
  static parse(text: string): CtyBigNumber {
    const decimal = parseDecimal(text);
    if (!decimal) throw new TypeError(`"${text}" is not a decimal number`);
    return new CtyBigNumber(text, decimal);
  }

  /** An integer of any size. */
  static fromBigInt(value: bigint): CtyBigNumber {
    return CtyBigNumber.parse(value.toString());
  }

  /** Whether the value is a whole number. */
  isInteger(): boolean {
    return this.#decimal.exp >= 0;
  }

  /** The value as a bigint; throws RangeError when it is not a whole number. */
  toBigInt(): bigint {
    const d = this.#decimal;
    if (d.exp < 0) throw new RangeError(`${this.text} is not a whole number`);
    const magnitude = d.digits * 10n ** BigInt(d.exp);
    return d.negative ? -magnitude : magnitude;
  }

  /** The nearest JS number (may lose precision; that is why this class exists). */
  toNumber(): number {
    return Number(this.text);
  }

  /** Numeric equality with another cty number (not text equality: "1.50" equals 1.5). */
  equals(other: number | CtyBigNumber): boolean {
    if (typeof other === 'number') return Number.isFinite(other) && decimalEqualsDouble(this.#decimal, other);
    const a = this.#decimal;
    const b = other.#decimal;
    return a.negative === b.negative && a.digits === b.digits && a.exp === b.exp;
  }

  /** The decimal text. */
  toString(): string {
    return this.text;
  }

  /** Serialises as the decimal text (a string), for logs and snapshots. */
  toJSON(): string {
    return this.text;
  }
}

/** A cty number as the codec hands it out. */
export type CtyNumber = number | CtyBigNumber;

/**
 * Decimal text to a cty number: a JS number when the text denotes a float64 exactly (e.g. "0.5",
 * "12"), else a CtyBigNumber (e.g. "0.1"). Returns undefined for text that is not a decimal.
 */
export function numberFromDecimalText(text: string): CtyNumber | undefined {
  const decimal = parseDecimal(text.trim());
  if (!decimal) return undefined;
  const x = Number(text);
  if (Number.isFinite(x) && decimalEqualsDouble(decimal, x)) return Object.is(x, -0) ? 0 : x;
  return CtyBigNumber.parse(text.trim());
}

/** A bigint to a cty number: a JS number when within the safe-integer range, else a CtyBigNumber. */
export function numberFromBigInt(value: bigint): CtyNumber {
  return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : CtyBigNumber.fromBigInt(value);
}

/** Numeric equality of two cty numbers, whichever representation each uses. */
export function numbersEqual(a: CtyNumber, b: CtyNumber): boolean {
  if (typeof a === 'number' && typeof b === 'number') return a === b;
  if (a instanceof CtyBigNumber) return a.equals(b);
  return (b as CtyBigNumber).equals(a);
}
