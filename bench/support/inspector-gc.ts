import { createWriteStream } from "node:fs";
import { fetch } from "undici";
import WebSocket from "ws";

/**
 * Opens the inspector of another Node process started with `--inspect=127.0.0.1:<port>`, sends `method` and
 * resolves when its reply comes; `onEvent` sees the events sent meanwhile (a heap snapshot comes as events).
 */
async function inspectorCall(
  inspectorPort: number,
  method: string,
  params: object = {},
  onEvent: (event: { method: string; params: Record<string, unknown> }) => void = () => undefined,
): Promise<void> {
  const targets = (await (await fetch(`http://127.0.0.1:${inspectorPort}/json/list`)).json()) as {
    webSocketDebuggerUrl: string;
  }[];
  const url = targets[0]?.webSocketDebuggerUrl;
  if (!url) throw new Error(`no inspector target on port ${inspectorPort}`);
  const socket = new WebSocket(url, { maxPayload: 2 ** 30 });
  try {
    await new Promise((resolve, reject) => socket.once("open", resolve).once("error", reject));
    await new Promise<void>((resolve, reject) => {
      socket.on("message", (data) => {
        const reply = JSON.parse(String(data)) as {
          id?: number;
          method?: string;
          params?: Record<string, unknown>;
          error?: { message: string };
        };
        if (reply.method !== undefined) onEvent({ method: reply.method, params: reply.params ?? {} });
        if (reply.id !== 1) return;
        if (reply.error) reject(new Error(`${method}: ${reply.error.message}`));
        else resolve();
      });
      socket.send(JSON.stringify({ id: 1, method, params }));
    });
  } finally {
    socket.close();
  }
}

/**
 * Forces a full garbage collection in another Node process started with `--inspect=127.0.0.1:<port>`, through the
 * inspector protocol (HeapProfiler.collectGarbage), so that a benchmark reads its memory without the garbage of the
 * moment: the heap otherwise swings by more than what a thousand visitors add.
 */
export async function collectGarbage(inspectorPort: number): Promise<void> {
  await inspectorCall(inspectorPort, "HeapProfiler.collectGarbage");
}

/**
 * Writes a heap snapshot of another Node process started with `--inspect=127.0.0.1:<port>` to `file` (open it in
 * Chrome DevTools' Memory tab), to see what the memory a benchmark measured is made of.
 */
export async function writeHeapSnapshot(inspectorPort: number, file: string): Promise<void> {
  const out = createWriteStream(file);
  await inspectorCall(inspectorPort, "HeapProfiler.takeHeapSnapshot", { reportProgress: false }, (event) => {
    if (event.method === "HeapProfiler.addHeapSnapshotChunk") out.write(String(event.params.chunk));
  });
  await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
}
