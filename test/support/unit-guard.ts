import childProcess from "node:child_process";
import { syncBuiltinESMExports } from "node:module";
import net from "node:net";

/**
 * The unit tier's rule, enforced: its tests run in process, in parallel, without servers, sockets or child
 * processes (the `unit` project's setup file, see vitest.config.ts). A test that needs any of them belongs to the
 * end-to-end tier: its file is named `*.e2e.test.ts`.
 */
function refuse(what: string): never {
  throw new Error(`a unit test may not ${what}: name its file *.e2e.test.ts (the end-to-end tier)`);
}

net.Server.prototype.listen = function listen(): never {
  refuse("listen on a port");
};
net.Socket.prototype.connect = function connect(): never {
  refuse("open a connection");
};
for (const name of ["spawn", "spawnSync", "fork", "exec", "execSync", "execFile", "execFileSync"] as const) {
  (childProcess as unknown as Record<string, unknown>)[name] = () => refuse(`start a process (${name})`);
}
// ESM imports of node:child_process see the replaced functions too.
syncBuiltinESMExports();
