import { fetch } from "undici";
import WebSocket from "ws";

/**
 * Forces a full garbage collection in another Node process started with `--inspect=127.0.0.1:<port>`, through the
 * inspector protocol (HeapProfiler.collectGarbage), so that a benchmark reads its memory without the garbage of the
 * moment: the heap otherwise swings by more than what a thousand visitors add.
 */
export async function collectGarbage(inspectorPort: number): Promise<void> {
  const targets = (await (await fetch(`http://127.0.0.1:${inspectorPort}/json/list`)).json()) as {
    webSocketDebuggerUrl: string;
  }[];
  const url = targets[0]?.webSocketDebuggerUrl;
  if (!url) throw new Error(`no inspector target on port ${inspectorPort}`);
  const socket = new WebSocket(url);
  try {
    await new Promise((resolve, reject) => socket.once("open", resolve).once("error", reject));
    await new Promise<void>((resolve, reject) => {
      socket.on("message", (data) => {
        const reply = JSON.parse(String(data)) as { id?: number; error?: { message: string } };
        if (reply.id !== 1) return;
        if (reply.error) reject(new Error(`HeapProfiler.collectGarbage: ${reply.error.message}`));
        else resolve();
      });
      socket.send(JSON.stringify({ id: 1, method: "HeapProfiler.collectGarbage" }));
    });
  } finally {
    socket.close();
  }
}
