import { connect, createServer, type Server, type Socket } from "node:net";

/**
 * A loopback TCP relay in front of a server (Redis) that a test can cut: {@link cut} drops every connection and
 * refuses new ones, as a network partition or a server restart would, until {@link restore}. Given to one client
 * only, it makes that client lose the server while the others keep it.
 */
export class TcpRelay {
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  #cut = false;

  private constructor(server: Server) {
    this.#server = server;
  }

  /** Starts relaying 127.0.0.1:<free port> to `port` on 127.0.0.1. */
  static async start(port: number): Promise<TcpRelay> {
    const server = createServer();
    const relay = new TcpRelay(server);
    server.on("connection", (client) => relay.#relay(client, port));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return relay;
  }

  /** The port clients connect to. */
  get port(): number {
    return (this.#server.address() as { port: number }).port;
  }

  /** Drops the open connections and refuses new ones. */
  cut(): void {
    this.#cut = true;
    for (const socket of this.#sockets) socket.destroy();
  }

  /** Lets connections through again. */
  restore(): void {
    this.#cut = false;
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #relay(client: Socket, port: number): void {
    if (this.#cut) {
      client.destroy();
      return;
    }
    const upstream = connect(port, "127.0.0.1");
    for (const socket of [client, upstream]) {
      this.#sockets.add(socket);
      socket.on("error", () => {});
      socket.on("close", () => {
        this.#sockets.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream);
    upstream.pipe(client);
  }
}
