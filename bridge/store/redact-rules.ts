// The secret patterns redaction applies at capture, as data: one row per kind, most specific first.
// Provider token shapes are taken from secretlint's recommended preset (@secretlint/secretlint-rule-preset-recommend
// 13.1.0, MIT, © azu) with its `(?<!\p{L})` guard widened to `(?<![A-Za-z0-9])`: the original refuses a token glued
// to Chinese text ("令牌是ghp_…"), since a CJK character is a letter. Rows marked "ours" have no secretlint rule.

export type RedactionKind = (typeof REDACTION_RULES)[number]["kind"];

/** Extra checks on a match, by name, so that the table stays data. */
export type RuleCheck = "luhn-card" | "password-value" | "letters-and-digits" | "aws-context";

export interface RedactionRule {
  readonly kind: string;
  /** Global, with `d` when it has a `secret` group; only that group is replaced, the rest is context. */
  readonly pattern: RegExp;
  readonly check?: RuleCheck;
  /** secretlint rule the shape comes from, or "ours". */
  readonly source: string;
}

// Token edges: no ASCII word character on either side (CJK and punctuation are fine neighbours).
const L = String.raw`(?<![A-Za-z0-9_])`;
const R = String.raw`(?![A-Za-z0-9_])`;
const rx = (body: string, flags = "g"): RegExp => new RegExp(body, flags);

const PASSWORD_WORDS_EN = String.raw`(?:password|passcode|passphrase|passwd|pwd|pin(?:\s?code|\s?number)?)`;
const PASSWORD_WORDS_ZH = String.raw`(?:密码|密碼|口令|(?<![A-Za-z])(?:PIN|pin)\s?[码碼]?)`;
const CREDENTIAL_WORDS = String.raw`(?:api[ _-]?key|access[ _-]?key|secret[ _-]?key|client[ _-]?secret|auth[ _-]?token|access[ _-]?token|token|secret|密钥|秘钥|令牌)`;

export const REDACTION_RULES = [
  {
    kind: "private-key",
    // An unterminated block (pasted and cut off) still loses its body. The body may not run past another
    // "-----", which keeps a text of many BEGIN lines linear.
    pattern: rx(String.raw`-----BEGIN[ A-Z0-9]{0,30}PRIVATE KEY(?: BLOCK)?-----(?:(?:[A-Za-z0-9+/=\s\\:,]|-(?!----))*-----END[ A-Z0-9]{0,30}PRIVATE KEY(?: BLOCK)?-----|[A-Za-z0-9+/=\s\\]*)`),
    source: "@secretlint/secretlint-rule-privatekey",
  },
  { kind: "jwt", pattern: rx(String.raw`${L}eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}${R}`), source: "ours" },
  { kind: "anthropic-api-key", pattern: rx(String.raw`${L}sk-ant-(?:api|admin)0\d-[A-Za-z0-9_-]{80,128}${R}`), source: "@secretlint/secretlint-rule-anthropic" },
  {
    kind: "openai-api-key",
    pattern: rx(String.raw`${L}sk-(?:(?:proj|svcacct|admin)-[A-Za-z0-9_-]{40,200}|[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20})${R}`),
    source: "@secretlint/secretlint-rule-openai",
  },
  // DeepSeek (sk- + 32 hex), Moonshot, Qwen/DashScope and the many OpenAI-compatible hosts share the `sk-` prefix.
  { kind: "sk-api-key", pattern: rx(String.raw`${L}sk-[A-Za-z0-9_-]{20,200}${R}`), check: "letters-and-digits", source: "ours" },
  { kind: "github-token", pattern: rx(String.raw`${L}(?:(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9_]{36}|github_pat_[A-Za-z0-9_]{82})${R}`), source: "@secretlint/secretlint-rule-github" },
  { kind: "gitlab-token", pattern: rx(String.raw`${L}glpat-[A-Za-z0-9_-]{20,128}${R}`), source: "@secretlint/secretlint-rule-gitlab" },
  {
    kind: "slack-token",
    pattern: rx(String.raw`${L}(?:xox[bpaore]|xapp)-(?:\d-)?(?:[A-Za-z0-9]{1,40}-)+[A-Za-z0-9]{1,40}${R}|https://hooks\.slack\.com/services/T[A-Za-z0-9]{1,40}/B[A-Za-z0-9]{1,40}/[A-Za-z0-9]{1,40}`),
    source: "@secretlint/secretlint-rule-slack",
  },
  { kind: "google-api-key", pattern: rx(String.raw`${L}AIza[0-9A-Za-z_-]{35}${R}`), source: "ours" },
  { kind: "stripe-key", pattern: rx(String.raw`${L}(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{24,99}${R}`), source: "@secretlint/secretlint-rule-stripe" },
  { kind: "sendgrid-key", pattern: rx(String.raw`${L}SG\.[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{16,64}${R}`), source: "@secretlint/secretlint-rule-sendgrid" },
  { kind: "npm-token", pattern: rx(String.raw`${L}npm_[A-Za-z0-9]{36}${R}`), source: "@secretlint/secretlint-rule-npm" },
  { kind: "huggingface-token", pattern: rx(String.raw`${L}hf_[A-Za-z]{34}${R}`), source: "@secretlint/secretlint-rule-huggingface" },
  { kind: "groq-api-key", pattern: rx(String.raw`${L}gsk_[A-Za-z0-9]{52}${R}`), source: "@secretlint/secretlint-rule-groq" },
  { kind: "vault-token", pattern: rx(String.raw`${L}hv[sbr]\.[A-Za-z0-9_-]{90,300}${R}`), source: "@secretlint/secretlint-rule-hashicorp-vault" },
  { kind: "shopify-token", pattern: rx(String.raw`${L}(?:shppa|shpca|shpat|shpss)_[A-Za-z0-9]{32,64}${R}`), source: "@secretlint/secretlint-rule-shopify" },
  { kind: "databricks-token", pattern: rx(String.raw`${L}dapi[a-f0-9]{32}(?:-\d)?${R}`), source: "@secretlint/secretlint-rule-databricks" },
  { kind: "docker-token", pattern: rx(String.raw`${L}dckr_pat_[A-Za-z0-9_-]{27}${R}`), source: "@secretlint/secretlint-rule-docker" },
  { kind: "linear-api-key", pattern: rx(String.raw`${L}lin_api_[A-Za-z0-9_]{32,128}${R}`), source: "@secretlint/secretlint-rule-linear" },
  { kind: "notion-token", pattern: rx(String.raw`${L}ntn_\d{11}[A-Za-z0-9]{35}${R}`), source: "@secretlint/secretlint-rule-notion" },
  { kind: "figma-token", pattern: rx(String.raw`${L}figd_[A-Za-z0-9_-]{40,200}${R}`), source: "@secretlint/secretlint-rule-figma" },
  { kind: "vercel-token", pattern: rx(String.raw`${L}(?:vcp|vci|vca|vcr|vck)_[A-Za-z0-9]{20,60}${R}`), source: "@secretlint/secretlint-rule-vercel" },
  { kind: "grafana-token", pattern: rx(String.raw`${L}(?:glc_[A-Za-z0-9+/]{32,400}={0,2}|glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8})${R}`), source: "@secretlint/secretlint-rule-grafana" },
  { kind: "cloudflare-token", pattern: rx(String.raw`${L}(?:cfk|cfut|cfat)_[A-Za-z0-9]{40}[0-9a-f]{8}${R}`), source: "@secretlint/secretlint-rule-cloudflare" },
  { kind: "tailscale-key", pattern: rx(String.raw`${L}tskey-[a-z]{2,20}-[0-9A-Za-z_]{8,40}-[0-9A-Za-z_]{16,60}${R}`), source: "@secretlint/secretlint-rule-tailscale" },
  { kind: "alibaba-access-key-id", pattern: rx(String.raw`${L}LTAI[A-Za-z0-9]{12,20}${R}`), source: "ours" },
  { kind: "aws-access-key-id", pattern: rx(String.raw`${L}(?:A3T[A-Z0-9]|AKIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|ASIA)[A-Z0-9]{16}${R}`), source: "@secretlint/secretlint-rule-aws" },
  // A bare 40-character secret is only an AWS secret when the text speaks of AWS; secretlint asks for the variable name.
  { kind: "aws-secret-access-key", pattern: rx(String.raw`(?<![A-Za-z0-9/+=])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])`), check: "aws-context", source: "ours" },
  {
    kind: "url-password",
    // Any scheme (postgres, mysql, mongodb+srv, redis, amqp, https, ftp …): the user and host stay, the password goes.
    pattern: rx(String.raw`${L}[A-Za-z][A-Za-z0-9+.-]{1,20}://[^\s:/@]{1,100}:(?<secret>[^\s@/]{1,200})@[^\s/?#]`, "gd"),
    source: "@secretlint/secretlint-rule-database-connection-string",
  },
  { kind: "connection-string-password", pattern: rx(String.raw`(?:^|[;\s])(?:Password|Pwd)=(?<secret>[^;\s]{1,200})`, "gdi"), source: "ours" },
  { kind: "card-number", pattern: rx(String.raw`(?<![0-9])(?:[0-9][ -]?){12,18}[0-9](?![0-9])`), check: "luhn-card", source: "ours" },
  {
    kind: "password",
    // "my password is hunter2", "the PIN for the garage is 4821", "password: 'correct horse'".
    pattern: rx(String.raw`(?<![A-Za-z])${PASSWORD_WORDS_EN}(?:\s+for\s+[^\n.,;:!?]{1,40}?)?\s*(?<sep>\bis\b|\bwas\b|\bto\b|:|=)\s*(?<secret>"[^"\n]{1,64}"|'[^'\n]{1,64}'|“[^”\n]{1,64}”|[^\s"',;，。；、]{2,63}[^\s"',;，。；、.!?)])`, "gdi"),
    check: "password-value",
    source: "ours",
  },
  {
    kind: "password",
    // "wifi密码是abc12345", "银行卡PIN码为 204816", "口令：Tiger#2024". The value must be ASCII: "密码是我生日" is no secret.
    pattern: rx(String.raw`${PASSWORD_WORDS_ZH}\s*(?:是|为|為|：|:|=)\s*[「“"']?(?<secret>[!-~]{3,64}?)(?=[」”"']?(?:[\s，。；、！？,;!?]|\.(?:\s|$)|$|[^!-~]))`, "gd"),
    source: "ours",
  },
  {
    kind: "credential",
    // "the API key is Zx81…", "token=…", "密钥是…": a long mixed value after a credential word.
    pattern: rx(String.raw`(?<![A-Za-z])${CREDENTIAL_WORDS}(?:\s+(?:is|was)\b|\s*(?:是|为|：|:|=))\s*["'“「]?(?<secret>[A-Za-z0-9_\-./+=]{16,200})`, "gdi"),
    check: "letters-and-digits",
    source: "ours",
  },
] as const satisfies readonly RedactionRule[];
