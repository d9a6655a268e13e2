import { describe, expect, it } from "vitest";
import { readJoined } from "../../../src/client/stream/shared-join.js";

const bytes = (text: string) => Buffer.from(text);

describe("readJoined", () => {
  it("hands over the parts joined, in order, including empty parts", () => {
    const seen: string[] = [];
    readJoined([bytes("ab"), bytes(""), bytes("cd"), new Uint8Array([0xc3, 0xa9])], (joined) => {
      seen.push(joined.toString());
    });
    readJoined([bytes("x")], (joined) => seen.push(joined.toString()));
    expect(seen).toEqual(["abcdé", "x"]);
  });

  it("gives a read that starts inside another read bytes of its own, leaving the outer bytes intact", () => {
    let outer = "";
    let inner = "";
    readJoined([bytes("outer "), bytes("bytes")], (joined) => {
      readJoined([bytes("inner "), bytes("read!")], (nested) => {
        inner = nested.toString();
        expect(nested.buffer).not.toBe(joined.buffer);
      });
      outer = joined.toString();
    });
    expect(inner).toBe("inner read!");
    expect(outer).toBe("outer bytes");
  });

  it("joins more than the shared buffer holds into a buffer of its own, which stays valid after the read", () => {
    const big = Buffer.alloc(100 * 1024, 0x61);
    let kept: Buffer | undefined;
    readJoined([big, bytes("end")], (joined) => {
      kept = joined;
    });
    readJoined([bytes("other bytes")], () => {});
    expect(kept?.length).toBe(big.length + 3);
    expect(kept?.subarray(-4).toString()).toBe("aend");
  });

  it("reuses one buffer from read to read, and has it back after a read that threw", () => {
    const memoryOf = (text: string) => {
      let memory: ArrayBufferLike | undefined;
      readJoined([bytes(text)], (joined) => {
        memory = joined.buffer;
      });
      return memory;
    };
    const shared = memoryOf("first");
    expect(memoryOf("again")).toBe(shared);
    expect(() =>
      readJoined([bytes("a")], () => {
        throw new Error("boom");
      }),
    ).toThrow("boom");
    expect(memoryOf("after")).toBe(shared);
  });
});
