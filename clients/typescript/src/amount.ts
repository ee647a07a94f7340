/**
 * Amounts never pass through a JS float. An amount is either a decimal string of taka
 * ("150.50", at most two decimals) or an integer number of paisa (15050, as a safe-integer
 * number or a bigint). A JS number is always read as paisa and must be an integer.
 */
export type Amount = string | number | bigint;

/** The API's bounds: more than 0 and at most 1 000 000 000 taka (100 000 000 000 paisa). */
export const MAX_PAISA = 100_000_000_000n;

const TAKA = /^\d+(\.\d{1,2})?$/;

/** An amount the client refuses before sending anything (never retried, never sent). */
export class AmountError extends RangeError {
  override name = "AmountError";
}

/** The amount in paisa, exactly. Throws AmountError for anything malformed or out of range. */
export function toPaisa(amount: Amount): bigint {
  let paisa: bigint;
  if (typeof amount === "string") {
    if (!TAKA.test(amount)) {
      throw new AmountError(`amount ${JSON.stringify(amount)} is not a decimal string of taka with at most two decimals (e.g. "150.50")`);
    }
    const [whole, frac = ""] = amount.split(".");
    paisa = BigInt(whole!) * 100n + BigInt(frac.padEnd(2, "0"));
  } else if (typeof amount === "bigint") {
    paisa = amount;
  } else if (typeof amount === "number") {
    if (!Number.isSafeInteger(amount)) {
      throw new AmountError(`amount ${amount} is not an integer number of paisa: give taka as a decimal string ("150.50") or paisa as an integer (15050)`);
    }
    paisa = BigInt(amount);
  } else {
    throw new AmountError("amount must be a decimal string of taka or an integer number of paisa");
  }
  if (paisa <= 0n || paisa > MAX_PAISA) {
    throw new AmountError(`amount must be more than 0 and at most 1000000000 taka (${MAX_PAISA} paisa)`);
  }
  return paisa;
}

/** The amount as a JSON number literal of taka ("150.50"), built by integer division. */
export function toAmountText(amount: Amount): string {
  const paisa = toPaisa(amount);
  return `${paisa / 100n}.${(paisa % 100n).toString().padStart(2, "0")}`;
}

/** The amount in paisa as a JS number (exact: at most 1e11, far below 2^53). */
export function toAmountMinor(amount: Amount): number {
  return Number(toPaisa(amount));
}

/**
 * JSON text of body with an `amount` member whose value is the number literal amountText,
 * written verbatim (Node 20 has no JSON.rawJSON; JSON.stringify would go through a float).
 */
export function jsonWithAmount(amountText: string, body: Record<string, unknown>): string {
  if (!/^\d+\.\d{2}$/.test(amountText)) throw new AmountError(`not an amount literal: ${amountText}`);
  const rest = JSON.stringify(body);
  return rest === "{}" ? `{"amount":${amountText}}` : `{"amount":${amountText},${rest.slice(1)}`;
}
