import { formatBytes } from "@cellar/client";
import type { Output } from "./output.js";

/** One transfer's bar. */
export interface TransferBar {
  update(done: number, total: number | undefined): void;
  /** Leaves the bar at its last state, with a word on how it ended. */
  finish(outcome: string): void;
}

/** The bars of the transfers of one command, drawn together on stderr. */
export interface TransferBars {
  /** Whether bars are drawn: results wait until they stop, not to be drawn over. */
  readonly shown: boolean;
  add(label: string, total: number | undefined): TransferBar;
  stop(): void;
}

const NO_BARS: TransferBars = {
  shown: false,
  add: () => ({ update() {}, finish() {} }),
  stop() {},
};

/**
 * Progress bars (cli-progress) on a terminal, one per transfer, redrawn at most 10 times
 * a second; nothing at all when `output` says no bars (not a terminal, --quiet, --json,
 * --no-progress).
 */
export async function transferBars(output: Output): Promise<TransferBars> {
  if (!output.showsProgress) return NO_BARS;
  // Loaded only to draw: a script's run does without it.
  const { MultiBar } = await import("cli-progress");
  const started = performance.now();
  const bars = new MultiBar({
    stream: output.stderr,
    format: "{bar} {percent} {done} of {all}  {speed}  {label}",
    barsize: 24,
    barCompleteChar: "\u2588",
    barIncompleteChar: "\u2591",
    fps: 10,
    hideCursor: true,
    clearOnComplete: false,
    stopOnComplete: false,
    gracefulExit: false,
    autopadding: true,
  });
  return {
    shown: true,
    add(label, total) {
      const payload = (done: number, all: number | undefined, status?: string) => {
        const seconds = (performance.now() - started) / 1000;
        return {
          label,
          done: formatBytes(done),
          all: all === undefined ? "?" : formatBytes(all),
          percent: all === undefined || all === 0 ? "  ?%" : `${String(Math.floor((done / all) * 100)).padStart(3)}%`,
          speed: status ?? (seconds > 0 ? `${formatBytes(Math.round(done / seconds))}/s` : ""),
        };
      };
      // cli-progress needs a positive total to draw a bar; an unknown size shows an empty one.
      const bar = bars.create(Math.max(total ?? 1, 1), 0, payload(0, total));
      let last = 0;
      let size = total;
      return {
        update(done, all) {
          last = done;
          if (all !== undefined && all !== size) bar.setTotal(Math.max(all, 1));
          size = all ?? size;
          bar.update(size === undefined ? 0 : done, payload(done, size));
        },
        finish(outcome) {
          bar.update(size === undefined ? 0 : last, payload(last, size, outcome));
        },
      };
    },
    stop: () => bars.stop(),
  };
}
