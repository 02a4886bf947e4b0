// The bridge's management methods (list, inspect, history, edit, stats) as a client meets them: bad
// params are refused with the field named and a 4xx code, nothing is written, and an edit is redacted
// like any other write.
import type { DreamError } from "../../bridge/protocol/errors";
import { httpStatusFor } from "../../bridge/protocol/wire";
import { createBridgeService } from "../../bridge/server/bridge-service";
import type { MemoryStore } from "../../bridge/store/memory-store";
import { openStore } from "../store/helpers";

const hooks = { status: async () => ({}), shutdown: () => undefined, embedQuery: async () => ({ fallback: "runtime_missing" as const }), reembed: () => ({}), purge: async () => ({}) };

describe("management RPC", () => {
  let store: MemoryStore;
  let handle: ReturnType<typeof createBridgeService>;
  beforeEach(() => {
    store = openStore();
    store.add({ id: "m", text: "the spare key is in the blue box", source_type: "user_message", timestamp_ms: 1000 });
    handle = createBridgeService(store, hooks, { redactSecrets: true });
  });
  afterEach(() => store.close());

  const refusal = (method: Parameters<typeof handle>[0], params: Record<string, unknown>) => handle(method, params).then(() => undefined, (error: DreamError) => error);

  it.each([
    ["list", { status: "gone" }, "INVALID_FIELD", "status", /^status must be "any", "active" or "quarantined"/],
    ["list", { order: "random" }, "INVALID_FIELD", "order", /^order must be "newest" or "oldest"/],
    ["list", { limit: 201 }, "INVALID_FIELD", "limit", /^limit must be an integer from 1 to 200/],
    ["list", { offset: -1 }, "INVALID_FIELD", "offset", /^offset must be an integer from 0/],
    ["list", { scope: "team" }, "INVALID_FIELD", "scope", /^scope must be "global" or "project:<name>"/],
    ["list", { source_type: "model_hint" }, "INVALID_SOURCE_TYPE", "source_type", /allowed: user_message/],
    ["list", { since_ms: "yesterday" }, "INVALID_FIELD", "since_ms", /^since_ms must be an integer/],
    ["list", { contains: 5 }, "INVALID_FIELD", "contains", /^contains must be a string/],
    ["inspect", {}, "INVALID_FIELD", "id", /^id must be a non-empty string/],
    ["inspect", { id: "nope" }, "NOT_FOUND", "id", /^no memory with id "nope"$/],
    ["history", {}, "MISSING_FIELD", "subject", /^subject is required/],
    ["history", { subject: "  " }, "MISSING_FIELD", "subject", /^subject is required/],
    ["edit", { id: "m" }, "MISSING_FIELD", "text", /^text is required/],
    ["edit", { id: "m", text: "" }, "INVALID_FIELD", "text", /./],
    ["edit", { id: "nope", text: "x" }, "NOT_FOUND", "id", /^no memory with id "nope"$/],
  ] as const)("%s %j is refused with %s naming %s, and nothing is written", async (method, params, code, field, message) => {
    const entries = (store.status().journal as { entries: number }).entries;
    const error = await refusal(method, params as Record<string, unknown>);
    expect(error).toMatchObject({ code, field, message: expect.stringMatching(message) });
    expect(httpStatusFor(error!.code)).toBeLessThan(500);
    expect((store.status().journal as { entries: number }).entries).toBe(entries);
  });

  it("redacts a secret in an edit's text before it is written, and says so", async () => {
    const result = (await handle("edit", { id: "m", text: "the wifi password is Tr0ub4dor&3" })) as { record: { text: string } };
    expect(result.record.text).not.toContain("Tr0ub4dor");
    expect(result.record.text).toContain("[redacted: password]");
  });

  it("answers list, history and stats with the documented shapes", async () => {
    expect(await handle("list", { limit: 1 })).toEqual({ total: 1, offset: 0, memories: [expect.objectContaining({ id: "m", act: "statement" })], next_offset: null });
    expect(await handle("history", { subject: "umbrella" })).toEqual({ subject: "umbrella", slots: [] });
    expect(await handle("stats", {})).toEqual(expect.objectContaining({ memories: 1, by_source_type: { user_message: 1 } }));
  });
});
