// OpenAiChatClient against a local server speaking the chat-completions protocol: the request it
// sends, retries on 429/5xx, the errors a user sees, and the key kept out of every one of them.
import util from "node:util";
import { ChatModelError } from "../../bridge/agent/chat-model";
import { OpenAiChatClient } from "../../bridge/agent/openai-chat-client";
import { ChatCompletionsServer } from "../fixtures/chat-completions-server";

const KEY = "sk-test-Zq8Lw3Xv9Rk2Mn7Pd4Hy";

async function chatError(promise: Promise<unknown>): Promise<ChatModelError> {
  const error = await promise.then(() => undefined, (reason: unknown) => reason);
  expect(error).toBeInstanceOf(ChatModelError);
  const failure = error as ChatModelError;
  for (const text of [failure.message, failure.hint, failure.stack ?? "", util.inspect(failure, { showHidden: true, depth: 9 })]) {
    expect(text).not.toContain(KEY.slice(0, 12));
    expect(text).not.toContain(KEY.slice(-4));
  }
  return failure;
}

describe("OpenAiChatClient against a local chat-completions server", () => {
  let server: ChatCompletionsServer;
  const client = (apiKey = KEY, maxRetries = 2) => new OpenAiChatClient({ baseUrl: server.baseUrl + "/", model: "test-chat", apiKey, keyName: "DEEPSEEK_API_KEY", maxRetries, timeoutMs: 5000 });
  beforeEach(async () => {
    server = await ChatCompletionsServer.start(KEY);
    server.answer = (body) => `echo: ${body.messages.at(-1)!.content}`;
  });
  afterEach(() => server.close());

  it("posts the model and messages with the bearer key, and asks for JSON only when told", async () => {
    await expect(client().complete([{ role: "user", content: "hi" }])).resolves.toBe("echo: hi");
    await client().complete([{ role: "user", content: "json please" }], { json: true });
    expect(server.requests.map((r) => [r.path, r.auth, r.body.model, r.body.response_format])).toEqual([
      ["/v1/chat/completions", "matched", "test-chat", undefined],
      ["/v1/chat/completions", "matched", "test-chat", { type: "json_object" }],
    ]);
    expect(server.requests.every((r) => !r.raw.includes(KEY))).toBe(true);
  });

  it("retries a 429 (honouring Retry-After) and a 503, then answers", async () => {
    server.failNext(1, 429, 0);
    server.failNext(1, 503, 0);
    await expect(client().complete([{ role: "user", content: "again" }])).resolves.toBe("echo: again");
    expect(server.requests).toHaveLength(3);
  });

  it("gives up after the retries with the status in the message", async () => {
    server.failNext(3, 500, 0);
    const error = await chatError(client(KEY, 2).complete([{ role: "user", content: "x" }]));
    expect(error.message).toBe(`${new URL(server.baseUrl).host} failed (HTTP 500): scripted HTTP 500 after 3 attempts`);
  });

  it("names the key variable on 401 without relaying the server's words, and does not retry", async () => {
    const error = await chatError(client("sk-wrong-key-0000").complete([{ role: "user", content: "x" }]));
    expect(error.message).toBe(`authentication failed (HTTP 401) at ${new URL(server.baseUrl).host}`);
    expect(error.hint).toContain("DEEPSEEK_API_KEY");
    expect(error.message).not.toContain("0000");
    expect(server.requests).toHaveLength(1);
  });

  it("gives up on a slow answer after the timeout, without retrying it", async () => {
    server.delayMs = 1000;
    const slow = new OpenAiChatClient({ baseUrl: server.baseUrl, model: "m", apiKey: KEY, keyName: "K", timeoutMs: 100 });
    const error = await chatError(slow.complete([{ role: "user", content: "x" }]));
    expect(error.message).toBe(`no answer within 100 ms from ${new URL(server.baseUrl).host}`);
    expect(server.requests).toHaveLength(1);
  });

  it("says which model was not found on 404", async () => {
    const bad = new OpenAiChatClient({ baseUrl: server.baseUrl + "/nowhere", model: "m", apiKey: KEY, keyName: "K" });
    expect((await chatError(bad.complete([{ role: "user", content: "x" }]))).message).toContain('model or endpoint not found (HTTP 404)');
  });

  it("keeps the key out of JSON.stringify and util.inspect of the client", () => {
    const c = client();
    expect(JSON.stringify(c)).not.toContain(KEY);
    expect(util.inspect(c, { showHidden: true, depth: 9 })).not.toContain(KEY);
  });
});
