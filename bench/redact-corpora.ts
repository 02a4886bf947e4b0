// The natural texts secret redaction must leave alone: every LoCoMo dev turn and every MADial-Bench (zh)
// memory and dialogue line, read from the shared data folder as its READMEs describe.
import fs from "node:fs";
import path from "node:path";
import { loadConversations } from "./locomo-data";
import { loadMemories, parseJsonLines } from "./madial-data";

export interface NaturalCorpus {
  name: string;
  texts: string[];
}

/** `<repo>/../shared/data`, where the benchmark data of this workspace lives. */
export function defaultDataDir(repoRoot: string): string {
  return path.resolve(repoRoot, "..", "shared", "data");
}

export function loadNaturalCorpora(dataDir: string): NaturalCorpus[] {
  const locomo = loadConversations(JSON.parse(fs.readFileSync(path.join(dataDir, "locomo", "dev.json"), "utf8")));
  const madialDir = path.join(dataDir, "madial-bench-zh");
  const memories = loadMemories(fs.readFileSync(path.join(madialDir, "MADial-Bench-zh-memory.json"), "utf8"));
  const dialogues = parseJsonLines(fs.readFileSync(path.join(madialDir, "MADial-Bench-zh-dialogue.json"), "utf8"));
  const lines = dialogues.flatMap((d) => ((d as { dialogue?: unknown }).dialogue as string[] | undefined) ?? []);
  return [
    { name: "locomo-dev turns", texts: locomo.flatMap((c) => c.turns.map((t) => t.text)) },
    { name: "madial-zh memories", texts: memories.map((m) => m.event) },
    { name: "madial-zh dialogue lines", texts: lines.filter((l) => l !== "<BOD>\n" && l !== "<EOD>\n") },
  ];
}
