import { createServer, request, type Server } from "node:http";
import { closeServer, listenOnLoopback, loopbackUrl } from "./loopback-server.js";

/** One request that went through a {@link RecordingProxy}. */
export interface ProxiedRequest {
  /** The path with its query, e.g. "/bot123:abc/getUpdates". */
  path: string;
  /** The answer's status; undefined while it is pending, or when the client or the server hung up first. */
  status: number | undefined;
}

/**
 * A loopback HTTP forwarder in front of one server (an emulator), recording each request's path and status. Given
 * to one client each, proxies tell which of several processes made which call, which the server alone cannot. A
 * client that hangs up (aborts a long poll, or dies) ends the forwarded request too.
 */
export class RecordingProxy {
  readonly requests: ProxiedRequest[] = [];
  readonly #server: Server;

  private constructor(server: Server) {
    this.#server = server;
  }

  /** Starts forwarding to `target` ("http://127.0.0.1:<port>"). */
  static async start(target: string): Promise<RecordingProxy> {
    const upstream = new URL(target);
    const server = createServer();
    const proxy = new RecordingProxy(server);
    server.on("request", (req, res) => {
      const recorded: ProxiedRequest = { path: req.url ?? "/", status: undefined };
      proxy.requests.push(recorded);
      const forwarded = request(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: req.method,
          path: req.url,
          headers: { ...req.headers, host: upstream.host },
        },
        (answer) => {
          recorded.status = answer.statusCode;
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      forwarded.on("error", () => res.destroy());
      res.on("close", () => forwarded.destroy());
      req.pipe(forwarded);
    });
    await listenOnLoopback(server);
    return proxy;
  }

  /** The URL to give the client instead of the server's. */
  get url(): string {
    return loopbackUrl(this.#server);
  }

  /** The requests to a Bot API or Web API method: paths ending in `/<method>`. */
  callsTo(method: string): ProxiedRequest[] {
    return this.requests.filter((recorded) => recorded.path.split("?")[0]?.endsWith(`/${method}`));
  }

  async close(): Promise<void> {
    await closeServer(this.#server);
  }
}
