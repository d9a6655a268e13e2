import { once } from "node:events";
import type { Server } from "node:http";
import type { Express } from "express";
import { errorCode, StartupError } from "./startup-error.js";

/**
 * Serves `app` on PORT (`port`) and resolves once it listens. A port taken by another program, or a privileged
 * one this user may not open, rejects with a StartupError naming PORT; the server is closed then.
 */
export async function listenOn(app: Express, port: number, host: string): Promise<Server> {
  const server = app.listen(port, host);
  try {
    await once(server, "listening");
  } catch (error) {
    server.close();
    throw portError(error, port);
  }
  return server;
}

function portError(error: unknown, port: number): unknown {
  switch (errorCode(error)) {
    case "EADDRINUSE":
      return new StartupError(
        "PORT",
        `PORT=${port} is already in use by another program: stop that program, or set PORT to a free port.`,
        "configuration",
        { cause: error },
      );
    case "EACCES":
      return new StartupError(
        "PORT",
        port < 1024
          ? `PORT=${port} is a privileged port (below 1024) that this user may not open: set PORT to 1024 or higher (e.g. 3000) and forward port ${port} to it, or allow it (setcap cap_net_bind_service=+ep on node).`
          : `PORT=${port} may not be opened by this user (EACCES): set PORT to another port.`,
        "configuration",
        { cause: error },
      );
    default:
      return error;
  }
}
