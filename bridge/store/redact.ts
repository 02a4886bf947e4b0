// Secret redaction at capture: finds the secrets REDACTION_RULES describes and replaces each with
// `[redacted: <kind>]`. Pure and synchronous; the values found are never returned, logged or kept.
import { REDACTION_RULES, type RedactionKind, type RedactionRule, type RuleCheck } from "./redact-rules";

export type { RedactionKind } from "./redact-rules";

export interface RedactionOutcome {
  text: string;
  /** How many secrets of each kind were replaced; kinds with none are absent. */
  redactions: Partial<Record<RedactionKind, number>>;
}

interface Span {
  start: number;
  end: number;
  kind: RedactionKind;
}

// Cheap gate: a match of any rule holds a digit, a token-shaped run of 16 characters, a URL or a
// password word, so plain prose skips the table.
const MAY_HOLD_SECRET = /[0-9]|[A-Za-z0-9_\-+/.=]{16}|:\/\/|xox|password|passcode|passphrase|passwd|pwd|\bpin|密|口令|令牌/i;

export function redactSecrets(text: string): RedactionOutcome {
  if (!MAY_HOLD_SECRET.test(text)) return { text, redactions: {} };
  const spans = chooseSpans(findSpans(text));
  if (spans.length === 0) return { text, redactions: {} };
  const redactions: Partial<Record<RedactionKind, number>> = {};
  let out = "";
  let at = 0;
  for (const span of spans) {
    out += `${text.slice(at, span.start)}[redacted: ${span.kind}]`;
    at = span.end;
    redactions[span.kind] = (redactions[span.kind] ?? 0) + 1;
  }
  return { text: out + text.slice(at), redactions };
}

const MARKER = /\[redacted: ([a-z0-9-]+)\]/g;

/** The redaction markers already in stored texts, by kind (what a receipt says its memories had removed). */
export function countRedactionMarkers(texts: Iterable<string>): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const text of texts) {
    if (!text.includes("[redacted: ")) continue;
    for (const match of text.matchAll(MARKER)) counts[match[1]] = (counts[match[1]] ?? 0) + 1;
  }
  return counts;
}

function findSpans(text: string): Array<Span & { rank: number }> {
  const spans: Array<Span & { rank: number }> = [];
  REDACTION_RULES.forEach((rule: RedactionRule, rank) => {
    // matchAll works on a copy of the global pattern, so the shared table keeps no lastIndex state.
    for (const match of text.matchAll(rule.pattern)) {
      if (rule.check !== undefined && !passesCheck(rule.check, match, text)) continue;
      const secret = match.indices?.groups?.secret;
      const [start, end] = secret ?? [match.index, match.index + match[0].length];
      spans.push({ start, end, kind: rule.kind as RedactionKind, rank });
    }
  });
  return spans;
}

/** Earlier rows are more specific: where spans overlap, the lower rank wins, then the earlier start. */
function chooseSpans(spans: Array<Span & { rank: number }>): Span[] {
  const taken: Span[] = []; // disjoint, ordered by start
  for (const span of [...spans].sort((a, b) => a.rank - b.rank || a.start - b.start)) {
    const at = firstEndingAfter(taken, span.start);
    if (at < taken.length && taken[at].start < span.end) continue;
    taken.splice(at, 0, { start: span.start, end: span.end, kind: span.kind });
  }
  return taken;
}

/** Index of the first span in `taken` that ends after `start` (binary search; ends rise with starts). */
function firstEndingAfter(taken: Span[], start: number): number {
  let lo = 0;
  let hi = taken.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (taken[mid].end <= start) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function passesCheck(check: RuleCheck, match: RegExpMatchArray, text: string): boolean {
  const value = match.groups?.secret ?? match[0];
  switch (check) {
    case "luhn-card":
      return isCardNumber(value.replace(/[ -]/g, ""));
    case "letters-and-digits":
      return /[A-Za-z]/.test(value) && /[0-9]/.test(value);
    case "aws-context":
      return /[A-Z]/.test(value) && /[a-z]/.test(value) && /[0-9]/.test(value) && AWS_CONTEXT.test(text);
    case "password-value":
      return isPasswordValue(value, match.groups?.sep ?? "");
  }
}

const AWS_CONTEXT = /(?:AKIA|ASIA)[A-Z0-9]{16}|\baws\b|amazon|secret[ _]?access[ _]?key|亚马逊/i;

// Issuer prefixes (Visa, Mastercard, Amex, Discover, JCB, Diners, UnionPay): with Luhn, a phone or order
// number rarely passes by chance.
const CARD_PREFIX = /^(?:4|5[1-5]|2[2-7]|3[47]|3[0689]|6(?:011|5|4[4-9]|2)|35)/;

function isCardNumber(digits: string): boolean {
  if (digits.length < 13 || digits.length > 19 || !CARD_PREFIX.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return sum % 10 === 0;
}

/**
 * After "is / was / to", prose follows as often as a password ("my password is too short"), so an
 * unquoted value must hold a digit or a symbol; after ":" or "=", or quoted, any value counts.
 */
function isPasswordValue(value: string, sep: string): boolean {
  if (/^["'“]/.test(value) || sep === ":" || sep === "=") return true;
  return /[0-9!@#$%^&*_+=~|\\/<>{}[\]]/.test(value);
}
