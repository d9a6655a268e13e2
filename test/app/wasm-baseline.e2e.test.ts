import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const MODULE = fileURLToPath(new URL("../../src/app/wasm-baseline.ts", import.meta.url));

/**
 * Runs a hot WebAssembly function long enough for V8's dynamic tiering to optimize it, in a process of its own
 * (V8's flags are the process's), and says which compiler's code it ends on (V8's test natives tell).
 */
function tierAfterHotLoop(keepBaseline: boolean): { liftoff: boolean; turbofan: boolean } {
  // (module (func (export "f") (param i32) (result i32) local.get 0 i32.const 1 i32.add))
  const script = `
    const { keepWebAssemblyOnBaselineCompiler } = await import(${JSON.stringify(MODULE)});
    if (${keepBaseline}) keepWebAssemblyOnBaselineCompiler();
    const bytes = new Uint8Array([0,97,115,109,1,0,0,0,1,6,1,96,1,127,1,127,3,2,1,0,7,5,1,1,102,0,0,10,9,1,7,0,32,0,65,1,106,11]);
    const { exports } = new WebAssembly.Instance(new WebAssembly.Module(bytes));
    for (let i = 0; i < 3e6; i++) exports.f(i);
    // Tiering compiles on a worker thread: give it up to 3 s (a loaded machine) to install the optimized code.
    for (let waited = 0; waited < 3000 && !%IsTurboFanFunction(exports.f); waited += 50) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    console.log(JSON.stringify({ liftoff: %IsLiftoffFunction(exports.f), turbofan: %IsTurboFanFunction(exports.f) }));
  `;
  const child = spawnSync(
    process.execPath,
    ["--allow-natives-syntax", "--import", "tsx", "--input-type=module", "--eval", script],
    { encoding: "utf8", timeout: 60_000 },
  );
  if (child.status !== 0) throw new Error(`the child failed (${child.status}): ${child.stderr}`);
  return JSON.parse(child.stdout.trim().split("\n").at(-1) ?? "");
}

describe("keepWebAssemblyOnBaselineCompiler", () => {
  it("keeps a hot WebAssembly function on the baseline compiler, where V8 would otherwise optimize it", () => {
    expect(tierAfterHotLoop(false)).toEqual({ liftoff: false, turbofan: true });
    expect(tierAfterHotLoop(true)).toEqual({ liftoff: true, turbofan: false });
  });
});
