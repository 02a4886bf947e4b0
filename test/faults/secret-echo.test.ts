// Issue 15, item 7: an embedding or chat endpoint that echoes the API key back in its error text, in
// any spelling, never gets it into what we show, log or put in status.
import { quotesSecret, serverMessage } from "../../bridge/client/remote-api";

const KEY = "sk-live-4f9a2c71b8e6d3a0f5c2";

describe("a server's error text", () => {
  it.each([
    ["plain", `Invalid API key: ${KEY}`],
    ["spaced out", `Invalid key ${KEY.split("").join(" ")}`],
    ["with dashes and dots", `key was ${KEY.replace(/(.)/g, "$1.")}`],
    ["base64", `bad credentials ${Buffer.from(KEY).toString("base64")}`],
    ["base64url", `bad credentials ${Buffer.from(`Bearer ${KEY}`).toString("base64url")}`],
    ["hex", `token=${Buffer.from(KEY).toString("hex")}`],
    ["upper case", `INVALID KEY ${KEY.toUpperCase()}`],
  ])("that quotes the key %s never shows it", (how, text) => {
    expect(quotesSecret(text, KEY)).toBe(true);
    const shown = serverMessage(JSON.stringify({ error: { message: text } }), KEY);
    expect(quotesSecret(shown, KEY)).toBe(false);
    // A plain quote loses only the word; any other spelling, the whole message.
    expect(shown).toBe(how === "plain" ? "Invalid API key: [redacted]" : "(the server's message is not shown: it quoted the API key)");
  });

  it("that does not quote it is shown, flattened and short", () => {
    const text = "Rate limit reached for text-embedding-3-small in organization org-123 on requests per min";
    expect(quotesSecret(text, KEY)).toBe(false);
    expect(serverMessage(JSON.stringify({ error: { message: text } }), KEY)).toBe(text);
    expect(serverMessage("x ".repeat(300), KEY)).toHaveLength(201);
  });
});
