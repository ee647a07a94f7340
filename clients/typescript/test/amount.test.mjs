import { test } from "node:test";
import assert from "node:assert/strict";
import { toAmountText, toAmountMinor, jsonWithAmount, AmountError } from "../dist/index.js";

test("decimal strings of taka become their exact literal", () => {
  assert.equal(toAmountText("150.50"), "150.50");
  assert.equal(toAmountText("150.5"), "150.50");
  assert.equal(toAmountText("150"), "150.00");
  assert.equal(toAmountText("0.01"), "0.01");
  assert.equal(toAmountText("007.10"), "7.10"); // never a leading zero in the JSON literal
  assert.equal(toAmountText("1000000000"), "1000000000.00");
  assert.equal(toAmountText("999999999.99"), "999999999.99");
});

test("integer paisa become taka by integer division", () => {
  assert.equal(toAmountText(15050), "150.50");
  assert.equal(toAmountText(1), "0.01");
  assert.equal(toAmountText(100), "1.00");
  assert.equal(toAmountText(15050n), "150.50");
  assert.equal(toAmountText(100_000_000_000), "1000000000.00");
  assert.equal(toAmountMinor("150.50"), 15050);
  assert.equal(toAmountMinor("0.29"), 29); // 0.29 * 100 is 28.999999999999996 as a float
  assert.equal(toAmountText(29), "0.29");
});

test("anything else is refused before a request", () => {
  for (const bad of ["150.505", "1e3", "-1", "+1", " 1", "1 ", "1.", ".5", "", "0x10", "١٥٠", "1,000", "0", "0.00", "1000000000.01", "NaN", "Infinity"]) {
    assert.throws(() => toAmountText(bad), AmountError, JSON.stringify(bad));
  }
  for (const bad of [150.5, 0.1, -1, 0, NaN, Infinity, 2 ** 53, 100_000_000_001, 0n, -5n]) {
    assert.throws(() => toAmountText(bad), AmountError, String(bad));
  }
  assert.throws(() => toAmountText(null), AmountError);
  assert.throws(() => toAmountText({}), AmountError);
});

test("the body's amount member is written as a number literal, never through a float", () => {
  assert.equal(jsonWithAmount("150.50", {}), '{"amount":150.50}');
  const text = jsonWithAmount(toAmountText("0.29"), { reference: "order-1", metadata: { a: 1 } });
  assert.equal(text, '{"amount":0.29,"reference":"order-1","metadata":{"a":1}}');
  assert.deepEqual(JSON.parse(text), { amount: 0.29, reference: "order-1", metadata: { a: 1 } });
  assert.throws(() => jsonWithAmount("1e3", {}), AmountError);
});
