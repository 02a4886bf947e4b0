// Reads an HTTP request body with a hard size cap, for the bridge's RPC server and the plugin's
// routes: a declared length over the cap is refused before reading, and a body that grows past it
// (no or false Content-Length) is refused as soon as it does; nothing more is buffered after that.
import type { IncomingMessage } from "node:http";
import { DreamError } from "../protocol/errors";

export function readCappedBody(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const tooLarge = (bytes: string) => new DreamError("INPUT_TOO_LARGE", `the request body is ${bytes} bytes; the limit is ${maxBytes}`);
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > maxBytes) return Promise.reject(tooLarge(String(declared)));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBytes) return void chunks.push(chunk);
      // Still flowing with no listener, so the rest is read and dropped and the answer can go out.
      req.off("data", onData);
      chunks.length = 0;
      reject(tooLarge(`more than ${maxBytes}`));
    };
    req.on("data", onData);
    req.once("end", () => resolve(Buffer.concat(chunks)));
    req.once("error", reject);
    // After "end" this rejection is a no-op; before it, the client went away mid-body.
    req.once("close", () => reject(new Error("the client closed the connection before the request body was complete")));
  });
}
