import { describe, expect, it, vi } from "vitest";
import { LinkedAbort } from "../../src/bridge/linked-abort.js";

describe("LinkedAbort", () => {
  it("aborts with the reason of whichever source aborts first, once", () => {
    const first = new AbortController();
    const second = new AbortController();
    const linked = new LinkedAbort([first.signal, undefined, second.signal]);
    expect(linked.signal.aborted).toBe(false);
    const seen: unknown[] = [];
    linked.signal.addEventListener("abort", () => seen.push(linked.signal.reason));
    second.abort("lease lost");
    first.abort("handover");
    expect(seen).toEqual(["lease lost"]);
  });

  it("aborts at once when a source already has", () => {
    const gone = new AbortController();
    gone.abort("already lost");
    expect(new LinkedAbort([new AbortController().signal, gone.signal]).signal.reason).toBe("already lost");
  });

  it("aborts by itself, keeping its own reason", () => {
    const source = new AbortController();
    const linked = new LinkedAbort([source.signal]);
    linked.abort("a write failed");
    source.abort("later");
    expect(linked.signal.reason).toBe("a write failed");
  });

  it("times out with a TimeoutError, and not once unlinked", () => {
    vi.useFakeTimers();
    try {
      const timed = new LinkedAbort([], 1_000);
      const unlinked = new LinkedAbort([], 1_000);
      unlinked.unlink();
      vi.advanceTimersByTime(999);
      expect(timed.signal.aborted).toBe(false);
      vi.advanceTimersByTime(1);
      expect(timed.signal.reason).toBeInstanceOf(DOMException);
      expect((timed.signal.reason as DOMException).name).toBe("TimeoutError");
      expect(unlinked.signal.aborted).toBe(false);
    } finally {
      vi.useRealTimers();
    }
  });

  it("leaves no listener on its sources once unlinked or aborted", () => {
    const source = new AbortController();
    const added = vi.spyOn(source.signal, "addEventListener");
    const removed = vi.spyOn(source.signal, "removeEventListener");
    const unlinked = new LinkedAbort([source.signal]);
    unlinked.unlink();
    const aborted = new LinkedAbort([source.signal]);
    aborted.abort();
    expect(added).toHaveBeenCalledTimes(2);
    expect(removed.mock.calls.map(([type, listener]) => [type, listener])).toEqual(
      added.mock.calls.map(([type, listener]) => [type, listener]),
    );
    source.abort("after");
    expect(unlinked.signal.aborted).toBe(false);
    expect(aborted.signal.reason).not.toBe("after");
  });
});
