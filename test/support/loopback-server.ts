import type { Server } from "node:http";
import type { AddressInfo } from "node:net";

/** Listens on 127.0.0.1, on `port` or a free one (the fakes tests and benchmarks start). */
export async function listenOnLoopback(server: Server, port = 0): Promise<void> {
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
}

/** "http://127.0.0.1:<port>" of a listening server. */
export function loopbackUrl(server: Server): string {
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Stops listening and cuts every connection still open (keep-alive sockets, pending long polls). */
export async function closeServer(server: Server): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeAllConnections();
  await closed;
}
