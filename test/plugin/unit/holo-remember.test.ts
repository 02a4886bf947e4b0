// holo_remember's record id is derived from the fact so that a retried call stores it once; it is
// derived from the fact as the bridge stores it (secrets redacted), so the id cannot give a short
// secret away (48 bits of sha256 over "my PIN is 4821" is a lookup away).
import { createHash } from "node:crypto";
import { redactSecrets } from "../../../bridge/store/redact";
import { holoRememberTool } from "../../../plugin/tools/holo-remember";

function run(fact: string): Promise<Record<string, unknown>> {
  const sent: Array<Record<string, unknown>> = [];
  const tool = holoRememberTool({
    call: async <T,>(_method: string, params: Record<string, unknown>) => {
      sent.push(params);
      return { record: { id: params.id }, status: "added" } as T;
    },
    markHighlight: () => 3,
    lastRecall: () => undefined,
    nowMs: () => 1_750_000_000_000,
  });
  return tool.execute({ fact }, { agent: { session: { header: { id: "s1" } } } } as unknown as Parameters<typeof tool.execute>[1]).then(() => sent[0]!);
}

const idFor = (text: string) => `fact:s1:3:${createHash("sha256").update(text).digest("hex").slice(0, 12)}`;

describe("holo_remember's record id", () => {
  it("is derived from the redacted fact when the fact holds a secret", async () => {
    const fact = "my bank PIN is 4821";
    const redacted = redactSecrets(fact).text;
    expect(redacted).not.toBe(fact);
    const record = await run(fact);
    expect(record.id).toBe(idFor(redacted));
    expect(record.id).not.toBe(idFor(fact));
  });

  it("is the same as before for a fact without one", async () => {
    const fact = "钥匙放在鞋柜里";
    expect((await run(fact)).id).toBe(idFor(fact));
  });
});
