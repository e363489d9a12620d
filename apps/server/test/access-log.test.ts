import type { DestinationStream } from "pino";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { ACCESS_MESSAGE, type AccessEntry, createAccessLog, createLogger, millisecondsJson } from "../src/logger.js";

/** A destination that keeps each line it is given. */
function captured() {
  const lines: string[] = [];
  const destination: DestinationStream = { write: (line: string) => lines.push(line) };
  return { lines, destination };
}

const entry: AccessEntry = {
  reqId: "trace-42",
  method: "GET",
  url: "/v1/files/file_abc?page=2",
  statusCode: 200,
  responseTime: 1.234,
  remoteAddress: "127.0.0.1",
  host: "cellar.example:8080",
};

/** What pino itself writes for `entry` through a logger made the way createLogger makes it. */
function pinoLine(logged: AccessEntry): Record<string, unknown> {
  const { lines, destination } = captured();
  createLogger({ destination }).info({ ...logged }, ACCESS_MESSAGE);
  return JSON.parse(lines[0] ?? "") as Record<string, unknown>;
}

function templateLine(logged: AccessEntry): { text: string; json: Record<string, unknown> } {
  const { lines, destination } = captured();
  createAccessLog(createLogger({ destination }))(logged);
  expect(lines).toHaveLength(1);
  const text = lines[0] ?? "";
  return { text, json: JSON.parse(text) as Record<string, unknown> };
}

const withoutTime = ({ time, ...rest }: Record<string, unknown>) => {
  expect(typeof time).toBe("number");
  return rest;
};

describe("the access log", () => {
  it("writes exactly what pino writes for the same entry, one line of JSON", () => {
    const { text, json } = templateLine(entry);
    expect(text.endsWith("}\n")).toBe(true);
    expect(text.indexOf("\n")).toBe(text.length - 1);
    expect(withoutTime(json)).toEqual(withoutTime(pinoLine(entry)));
    expect(Object.keys(json)).toEqual(Object.keys(pinoLine(entry)));
    expect(json).toMatchObject({ level: 30, service: "cellar", msg: "request completed", reqId: "trace-42" });
    expect(Math.abs((json.time as number) - Date.now())).toBeLessThan(5_000);
  });

  it("escapes what a client sent, and masks secret query parameters", () => {
    const hostile: AccessEntry = {
      ...entry,
      url: '/v1/files/"}\n{"level":60,"msg":"forged\u0000\u2028é?token=s3cret&x=1',
      host: 'evil"\\host\r\n',
    };
    const { text, json } = templateLine(hostile);
    expect(text.split("\n")).toHaveLength(2);
    expect(json.url).toBe('/v1/files/"}\n{"level":60,"msg":"forged\u0000\u2028é?token=[redacted]&x=1');
    expect(json.host).toBe('evil"\\host\r\n');
    expect(text).not.toContain("s3cret");
    expect(withoutTime(json)).toEqual(withoutTime(pinoLine({ ...hostile, url: json.url as string })));
  });

  it("writes the response time to the microsecond", () => {
    const { json } = templateLine({ ...entry, responseTime: 12.3456789 });
    expect(json.responseTime).toBe(12.346);
  });

  it("writes each response time as JSON writes the same time rounded to the microsecond", () => {
    const asJson = (ms: number) => JSON.stringify(Math.round(ms * 1000) / 1000);
    const samples = [0, -0, 0.0004, 0.0005, 0.001, 0.01, 0.05, 0.1, 0.12, 0.999, 1, 1.0005, 1.05, 12, 12.3456789, 1000];
    samples.push(1e9 + 0.001, 2 ** 53 / 1000, 2 ** 60, 1e21, -0.0004, -1.2345, Number.MAX_VALUE);
    // Around 10^12 ms, where a double stops holding every microsecond's shortest text.
    samples.push(999_999_999_999.999, 1e12, 1e12 + 0.001, 8_966_324_944_965.109, 2 ** 43 + 0.109);
    // A seeded spread of times, from a microsecond to far beyond any a server sees.
    let seed = 42;
    for (let i = 0; i < 20_000; i++) {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      samples.push((seed / 2 ** 31) * 10 ** ((i % 17) - 3));
    }
    for (const ms of samples) expect(millisecondsJson(ms), String(ms)).toBe(asJson(ms));
    for (const ms of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) {
      expect(millisecondsJson(ms)).toBe("null");
    }
  });

  it("leaves out a missing address and writes a non-finite time as null, as pino does", () => {
    const odd: AccessEntry = { ...entry, remoteAddress: undefined, responseTime: Number.NaN };
    const { json } = templateLine(odd);
    expect("remoteAddress" in json).toBe(false);
    expect(json.responseTime).toBeNull();
    expect(withoutTime(json)).toEqual(withoutTime(pinoLine(odd)));
  });

  it("follows the logger's level when it is called, not when it was made", () => {
    const { lines, destination } = captured();
    const logger = createLogger({ destination, level: "warn" });
    const logAccess = createAccessLog(logger);
    logAccess(entry);
    expect(lines).toHaveLength(0);
    logger.level = "info";
    logAccess(entry);
    expect(lines).toHaveLength(1);
    logger.level = "silent";
    logAccess(entry);
    expect(lines).toHaveLength(1);
  });

  it("goes through logger.info for a logger Cellar did not make", () => {
    const { lines, destination } = captured();
    const logger = pino({ base: { app: "host" } }, destination);
    createAccessLog(logger)({ ...entry, url: "/sign-in?token=s3cret" });
    expect(lines).toHaveLength(1);
    const json = JSON.parse(lines[0] ?? "") as Record<string, unknown>;
    expect(json).toMatchObject({ app: "host", msg: "request completed", url: "/sign-in?token=[redacted]" });
  });
});
