import fs from "node:fs";
import path from "node:path";
import { defaultDataDir, loadNaturalCorpora } from "../../bench/redact-corpora";
import { redactSecrets } from "../../bridge/store/redact";
import { FAKE_SECRET_KINDS, generateFakeSecrets } from "../fixtures/fake-secrets";

describe("redactSecrets: exact output", () => {
  it.each([
    ["my password is hunter2.", "my password is [redacted: password].", { password: 1 }],
    ["我的wifi密码是abc12345，别告诉别人", "我的wifi密码是[redacted: password]，别告诉别人", { password: 1 }],
    ["银行卡PIN码为 204816。", "银行卡PIN码为 [redacted: password]。", { password: 1 }],
    ["我的令牌是ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8", "我的令牌是[redacted: github-token]", { "github-token": 1 }],
    ["db at postgres://app:S3cret!x@db.example.com:5432/prod", "db at postgres://app:[redacted: url-password]@db.example.com:5432/prod", { "url-password": 1 }],
    ["card 4111 1111 1111 1111, thanks", "card [redacted: card-number], thanks", { "card-number": 1 }],
    [
      "AKIAIOSFODNN7EXAMPLE and wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
      "[redacted: aws-access-key-id] and [redacted: aws-secret-access-key]",
      { "aws-access-key-id": 1, "aws-secret-access-key": 1 },
    ],
    ["keys: sk-0123456789abcdef0123456789abcdef and sk-fedcba9876543210fedcba9876543210", "keys: [redacted: sk-api-key] and [redacted: sk-api-key]", { "sk-api-key": 2 }],
    [
      "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n-----END OPENSSH PRIVATE KEY----- done",
      "[redacted: private-key] done",
      { "private-key": 1 },
    ],
  ])("redacts %j", (input, text, redactions) => {
    expect(redactSecrets(input)).toEqual({ text, redactions });
  });

  it.each([
    "my password is too short",
    "密码是我生日",
    "I forgot my PIN again, what a day.",
    "Call me at 138 0013 8000 or +1 415 555 0199.",
    "Order 4111111111111112 is not a card: its check digit is wrong.",
    "The commit 3f786850e387550fdab836ed7e6dc881de23001b broke the build.",
    "Visit https://example.com/path?a=1 for the schedule.",
  ])("leaves %j unchanged", (input) => {
    expect(redactSecrets(input)).toEqual({ text: input, redactions: {} });
  });

  it("keeps a 40-character secret when nothing in the text speaks of AWS", () => {
    const text = "my note id is wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
    expect(redactSecrets(text).text).toBe(text);
  });

  it("lets the more specific kind win where two rules cover the same secret", () => {
    const jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3OCJ9.c2lnbmF0dXJlLXNpZ25hdHVyZQ";
    expect(redactSecrets(`token=${jwt}`)).toEqual({ text: "token=[redacted: jwt]", redactions: { jwt: 1 } });
  });

  it("redacts every one of many secrets in one long text", () => {
    const keys = Array.from({ length: 500 }, (_, i) => `sk-${String(i).padStart(4, "0")}abcdef0123456789abcdef0123456789`);
    const outcome = redactSecrets(keys.join(" "));
    expect(outcome.redactions).toEqual({ "sk-api-key": 500 });
    expect(outcome.text).toBe(Array(500).fill("[redacted: sk-api-key]").join(" "));
  });

  it("never returns a redacted value, in the text or in the counts", () => {
    const outcome = redactSecrets("password: Tiger#2024 and token=ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8");
    expect(JSON.stringify(outcome)).not.toMatch(/Tiger#2024|ghp_a1B2/);
  });
});

describe("redactSecrets: recall on generated fake secrets", () => {
  it("removes at least 99 % of 40 fake secrets per kind in English and Chinese sentences, counting each under its kind", () => {
    const cases = generateFakeSecrets(20_261_202, 40);
    const misses: string[] = [];
    for (const c of cases) {
      const outcome = redactSecrets(c.text);
      const leaked = c.values.some((v) => outcome.text.includes(v));
      if (leaked || (outcome.redactions as Record<string, number>)[c.kind] === undefined) misses.push(`${c.kind}: ${JSON.stringify(c.text.slice(0, 120))} -> ${JSON.stringify(outcome.redactions)}`);
    }
    const recall = 1 - misses.length / cases.length;
    console.log(`redaction recall ${(recall * 100).toFixed(2)} % on ${cases.length} cases of ${FAKE_SECRET_KINDS.length} kinds; misses:\n${misses.join("\n")}`);
    expect(recall).toBeGreaterThanOrEqual(0.99);
  });
});

const dataDir = defaultDataDir(path.resolve(__dirname, "..", ".."));
const haveData = fs.existsSync(path.join(dataDir, "locomo", "dev.json")) && fs.existsSync(path.join(dataDir, "madial-bench-zh"));
if (!haveData) console.warn(`redact false-positive check skipped: no benchmark data under ${dataDir}`);

(haveData ? describe : describe.skip)("redactSecrets: false positives on natural dialogue", () => {
  it("changes at most 0.1 % of LoCoMo dev turns and MADial-Bench zh texts", () => {
    const report: string[] = [];
    let total = 0;
    let changed = 0;
    for (const corpus of loadNaturalCorpora(dataDir)) {
      const hits = corpus.texts.filter((t) => redactSecrets(t).text !== t);
      total += corpus.texts.length;
      changed += hits.length;
      report.push(`${corpus.name}: ${hits.length} of ${corpus.texts.length} changed${hits.map((h) => `\n  ${JSON.stringify(redactSecrets(h).text.slice(0, 160))}`).join("")}`);
    }
    console.log(`redaction false positives: ${changed} of ${total} (${((changed / total) * 100).toFixed(3)} %)\n${report.join("\n")}`);
    expect(total).toBeGreaterThan(4000);
    expect(changed / total).toBeLessThanOrEqual(0.001);
  });
});
