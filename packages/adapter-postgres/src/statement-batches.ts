import DataLoader from "dataloader";
import type { Pool } from "pg";

export interface StatementBatchOptions {
  /**
   * How many statements of one kind may be under way at once (default 2). Calls made
   * while that many are under way wait, together, for the next one.
   */
  readonly maxInFlight?: number;
}

/**
 * Calls of one kind gathered into one statement: `run` gets every call made since the
 * last statement of this kind was sent, in the order they were made, and answers each
 * (a value, or an Error for that call alone).
 *
 * Why: under load every request of a busy instance looks up the same few kinds of rows
 * (its session, the file it names) and counts a rate-limit hit, and a round
 * trip to PostgreSQL costs about as much as a whole bare HTTP request (docs/performance.md).
 * Sent one by one, the round trips bound what an instance serves; gathered, fifty
 * requests under way cost a handful of statements.
 *
 * Exactness: a call only ever joins a statement that has not been sent yet, so the
 * statement that answers it starts after the call was made and sees every write committed
 * before — a session revoked on another instance before this request arrived is seen as
 * revoked. Nothing is remembered between statements (DataLoader's cache is off).
 *
 * When: an idle kind sends at the end of the event-loop turn in which the first call was
 * made (`setImmediate`), so requests read in the same turn share it; a busy kind sends as
 * soon as one of its statements under way comes back, so the wait is never longer than
 * one statement.
 */
export function statementBatches<Input, Output>(
  run: (inputs: readonly Input[]) => Promise<ReadonlyArray<Output | Error>>,
  options: StatementBatchOptions = {},
): (input: Input) => Promise<Output> {
  const maxInFlight = options.maxInFlight ?? 2;
  if (!(Number.isInteger(maxInFlight) && maxInFlight >= 1)) {
    throw new RangeError(`maxInFlight must be a whole number, 1 or more: ${maxInFlight}`);
  }
  // Statements scheduled or under way; batches waiting for a free slot, oldest first.
  let inFlight = 0;
  const waiting: (() => void)[] = [];
  const finished = () => {
    const next = waiting.shift();
    // The slot passes straight to the next batch waiting, or is freed.
    if (next !== undefined) setImmediate(next);
    else inFlight--;
  };
  const loader = new DataLoader<Input, Output>(
    async (inputs) => {
      try {
        return await run(inputs);
      } finally {
        finished();
      }
    },
    {
      cache: false,
      batchScheduleFn(dispatch) {
        if (inFlight < maxInFlight) {
          inFlight++;
          setImmediate(dispatch);
        } else {
          waiting.push(dispatch);
        }
      },
    },
  );
  return (input) => loader.load(input);
}

/**
 * Rows looked up by id, many ids to a statement (`WHERE id = ANY($1)`): `select` is the
 * statement, `$1` the ids without repeats; each call gets its row, or null (a value of
 * its own: callers asking for the same id share no object).
 */
export function batchedLookupById<Row extends { id: string }, Value>(
  pool: Pool,
  select: string,
  toValue: (row: Row) => Value,
  options?: StatementBatchOptions,
): (id: string) => Promise<Value | null> {
  return statementBatches<string, Value | null>(async (ids) => {
    // PostgreSQL's text cannot hold a NUL: such an id names no row, and sent, it would
    // fail the statement for every other caller in it.
    const { rows } = await pool.query<Row>(select, [[...new Set(ids.filter((id) => !id.includes("\0")))]]);
    const byId = new Map(rows.map((row) => [row.id, row]));
    return ids.map((id) => {
      const row = byId.get(id);
      return row === undefined ? null : toValue(row);
    });
  }, options);
}
