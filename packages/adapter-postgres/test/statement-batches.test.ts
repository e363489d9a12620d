import { setImmediate as nextTurn } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { statementBatches } from "../src/statement-batches.js";

/** A `run` whose statements finish when the test says, recording what each was sent. */
function controlledRun() {
  const sent: { inputs: number[]; finish: (error?: Error) => void }[] = [];
  const run = (inputs: readonly number[]) =>
    new Promise<ReadonlyArray<number | Error>>((resolve, reject) => {
      sent.push({
        inputs: [...inputs],
        finish: (error) =>
          error === undefined ? resolve(inputs.map((n) => (n < 0 ? new Error(`bad ${n}`) : n * 10))) : reject(error),
      });
    });
  return { sent, run };
}

describe("statementBatches", () => {
  it("sends the calls made in one turn as one statement, each answered with its own value", async () => {
    const { sent, run } = controlledRun();
    const call = statementBatches(run);
    const answers = Promise.all([call(1), call(2), call(1)]);
    await nextTurn();
    expect(sent.map((s) => s.inputs)).toEqual([[1, 2, 1]]);
    sent[0]?.finish();
    expect(await answers).toEqual([10, 20, 10]);
  });

  it("holds calls made while maxInFlight statements are under way, and sends them together as one comes back", async () => {
    const { sent, run } = controlledRun();
    const call = statementBatches(run, { maxInFlight: 1 });
    const first = call(1);
    await nextTurn();
    const later = [call(2), call(3)];
    await nextTurn();
    const last = call(4);
    await nextTurn();
    // Nothing more is sent while the first is under way.
    expect(sent.map((s) => s.inputs)).toEqual([[1]]);
    sent[0]?.finish();
    expect(await first).toBe(10);
    await nextTurn();
    expect(sent.map((s) => s.inputs)).toEqual([[1], [2, 3, 4]]);
    sent[1]?.finish();
    expect(await Promise.all([...later, last])).toEqual([20, 30, 40]);
  });

  it("runs up to maxInFlight statements at once", async () => {
    const { sent, run } = controlledRun();
    const call = statementBatches(run, { maxInFlight: 2 });
    const answers = [call(1)];
    await nextTurn();
    answers.push(call(2));
    await nextTurn();
    answers.push(call(3));
    await nextTurn();
    expect(sent.map((s) => s.inputs)).toEqual([[1], [2]]);
    sent[1]?.finish();
    await nextTurn();
    await nextTurn();
    expect(sent.map((s) => s.inputs)).toEqual([[1], [2], [3]]);
    sent[0]?.finish();
    sent[2]?.finish();
    expect(await Promise.all(answers)).toEqual([10, 20, 30]);
  });

  it("fails only the call answered with an Error, and every call of a statement that failed; the next statement still goes", async () => {
    const { sent, run } = controlledRun();
    const call = statementBatches(run, { maxInFlight: 1 });
    const mixed = [call(1), call(-1)];
    await nextTurn();
    sent[0]?.finish();
    await expect(mixed[0]).resolves.toBe(10);
    await expect(mixed[1]).rejects.toThrow("bad -1");
    const failing = [call(5), call(6)];
    await nextTurn();
    sent[1]?.finish(new Error("connection lost"));
    for (const answer of failing) await expect(answer).rejects.toThrow("connection lost");
    const after = call(7);
    await nextTurn();
    sent[2]?.finish();
    expect(await after).toBe(70);
  });

  it("refuses a maxInFlight that is not a whole number of at least 1", () => {
    const { run } = controlledRun();
    for (const maxInFlight of [0, -1, 1.5, Number.NaN]) {
      expect(() => statementBatches(run, { maxInFlight })).toThrow(RangeError);
    }
  });
});
