import type { ExpectStatic } from "vitest";

/**
 * The slice of a test runner a contract suite needs. Pass vitest's own functions:
 * `fileRepositoryContract({ describe, it, expect }, { create })`.
 */
export interface ContractTestApi {
  describe(name: string, body: () => void): void;
  it(name: string, body: () => Promise<void>): void;
  expect: ExpectStatic;
}

/** A fresh subject for each test, and how to release it afterwards. */
export interface ContractSubject<T> {
  create(): T | Promise<T>;
}

export interface Closable {
  close?(): void | Promise<void>;
}

/** Registers a test that builds a fresh subject, runs, and always releases it. */
export function fresh<T extends Closable>(
  t: ContractTestApi,
  subject: ContractSubject<T>,
): (name: string, body: (fixture: T) => Promise<void>) => void {
  return (name, body) =>
    t.it(name, async () => {
      const fixture = await subject.create();
      try {
        await body(fixture);
      } finally {
        await fixture.close?.();
      }
    });
}
