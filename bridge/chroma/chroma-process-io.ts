// Embedded Chroma I/O: the child's output tail, the loopback port check, the heartbeat probe and an
// interruptible pause. Small process and socket helpers that chroma-process builds on.
import type { ChildProcess } from "node:child_process";
import http from "node:http";
import net from "node:net";
import { DreamError } from "../protocol/errors";

export const LOOPBACK = "127.0.0.1";

/**
 * Where the embedded Chroma listens. Chroma 1.x's server enforces no credential and checks no Host
 * header, so what keeps a web page (DNS rebinding) or a port scan off it is not being where anybody
 * looks: a random address of the loopback /8, which Linux and Windows answer without setup, instead
 * of 127.0.0.1 (2^24 addresses times 2^16 ports, versus 2^16). macOS answers 127.0.0.1 only.
 * A local process of the same user can still find it (docs/design.md says what protects what).
 */
export function privateLoopbackHost(platform: NodeJS.Platform = process.platform, random: () => number = Math.random): string {
  if (platform !== "linux" && platform !== "win32") return LOOPBACK;
  const octet = (low: number, high: number) => low + Math.floor(random() * (high - low + 1));
  // 127.0.0.x is avoided (where anything else on loopback listens), as are .0 and .255 endings.
  return `127.${octet(1, 254)}.${octet(0, 255)}.${octet(1, 254)}`;
}

/** Keeps the last lines of the server's stdout and stderr, without ANSI colour codes. */
export class OutputTail {
  private readonly kept: string[] = [];

  constructor(private readonly maxLines: number) {}

  attach(child: ChildProcess): void {
    for (const stream of [child.stdout, child.stderr]) {
      if (!stream) continue;
      let partial = "";
      stream.setEncoding("utf8");
      stream.on("data", (chunk: string) => {
        const parts = (partial + chunk).split(/\r?\n/);
        partial = parts.pop() ?? "";
        parts.forEach((line) => this.note(line));
      });
      stream.on("end", () => this.note(partial));
    }
  }

  note(line: string): void {
    const clean = line.replace(/\x1b\[[0-9;?]*[ -\/]*[@-~]/g, "").trimEnd();
    if (clean.trim() === "") return;
    this.kept.push(clean);
    if (this.kept.length > this.maxLines) this.kept.shift();
  }

  lines(): string[] {
    return [...this.kept];
  }

  /** The few lines that explain a failure (a panic, an address in use), else the last ones. */
  summary(): string {
    const telling = this.kept.filter((line) => /panicked|error|not available|cannot/i.test(line));
    return (telling.length > 0 ? telling : this.kept).slice(-3).join(" | ") || "it printed nothing";
  }
}

/** Binds and releases a loopback port: 0 finds a free one, any other number checks it is free. */
export function claimPort(port: number, host = LOOPBACK): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", (error: NodeJS.ErrnoException) => {
      const detail = error.code === "EADDRINUSE" ? "is already in use" : `cannot be bound (${error.code ?? error.message})`;
      reject(new DreamError("CHROMA_UNAVAILABLE", `port ${port} on ${host} ${detail}; choose another Chroma port`, { cause: error }));
    });
    server.listen(port, host, () => {
      const bound = (server.address() as net.AddressInfo).port;
      server.close(() => resolve(bound));
    });
  });
}

/** One GET /api/v2/heartbeat without keep-alive, so no socket outlives the probe. */
export function probeHeartbeat(port: number, timeoutMs: number, host = LOOPBACK): Promise<boolean> {
  return new Promise((resolve) => {
    const request = http.get({ host, port, path: "/api/v2/heartbeat", agent: false, timeout: timeoutMs }, (response) => {
      response.resume();
      resolve(response.statusCode === 200);
    });
    request.on("timeout", () => request.destroy());
    // Refused or reset means "not up (yet)": a normal answer while polling, not an error to report.
    request.on("error", () => resolve(false));
  });
}

/** Waits ms, or less if interrupt settles first; leaves no timer behind either way. */
export function pause(ms: number, interrupt: Promise<unknown>): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    void interrupt.then(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}
