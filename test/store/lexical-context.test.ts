// Lexical recall through the store: stemming, query function words, and neighbouring turns.
import { openStore, searchIds, tempDir } from "./helpers";

const T0 = Date.UTC(2026, 0, 1);
const MINUTE_MS = 60_000;

// A question turn, its answer (which shares only the speaker's name with the query), and an unrelated memory
// that matches two query words ("Caroline", "keeps"). In latest mode a question comes after the statements
// (search.ts), so the question turn that lends its score is listed last.
const question = { id: "q", text: "Melanie: What kind of books do you keep in your library?", turn: 7 };
const answer = { id: "a", text: "Caroline: Lots of classics, and stories from different cultures.", turn: 8 };
const unrelated = { id: "u", text: "Jon: Caroline said the dance studio keeps its doors open late." };
const QUERY = "What books does Caroline keep in her library?";

function turnRecord({ id, text, turn }: { id: string; text: string; turn: number }, extra: Record<string, unknown> = {}) {
  return { id, text, source_type: "user_message", timestamp_ms: T0 + turn * MINUTE_MS, session_id: "chat-1", turn, ...extra };
}
const unrelatedRecord = (extra: Record<string, unknown> = {}) => ({ ...unrelated, source_type: "user_message", timestamp_ms: T0, ...extra });

describe("lexical search through the store", () => {
  it("finds a memory through another inflection of its words", () => {
    const store = openStore();
    store.importRecords([
      { id: "camp", text: "We camped by the lake and I painted the sunrise.", source_type: "user_message" },
      { id: "other", text: "The lake house has a new roof.", source_type: "user_message" },
    ]);
    expect(searchIds(store, { query: "When did she go camping and painting?" })).toEqual(["camp"]);
    store.close();
  });

  it("ranks the reply to a matching question above an unrelated memory that matches more query words", () => {
    const store = openStore();
    store.importRecords([unrelatedRecord(), turnRecord(question), turnRecord(answer)]);
    expect(searchIds(store, { query: QUERY, top_k: 3 })).toEqual(["a", "u", "q"]);
    store.close();
  });

  it("ranks the same memories on their own words when they carry no session and turn", () => {
    const store = openStore();
    store.importRecords([unrelatedRecord(), ...[question, answer].map(({ id, text }) => ({ id, text, source_type: "user_message", timestamp_ms: T0 }))]);
    expect(searchIds(store, { query: QUERY, top_k: 3 })).toEqual(["u", "a", "q"]);
    store.close();
  });

  it("links turns written one at a time exactly as turns imported together, and after reopening", () => {
    const dir = tempDir();
    const store = openStore(dir);
    store.add(turnRecord(answer));
    store.add(unrelatedRecord());
    store.add(turnRecord(question));
    expect(searchIds(store, { query: QUERY, top_k: 3 })).toEqual(["a", "u", "q"]);
    store.close();
    const reopened = openStore(dir);
    expect(searchIds(reopened, { query: QUERY, top_k: 3 })).toEqual(["a", "u", "q"]);
    reopened.close();
  });

  it("lends nothing from a forgotten turn", () => {
    const store = openStore();
    store.importRecords([unrelatedRecord(), turnRecord(question), turnRecord(answer)]);
    store.forget("q");
    expect(searchIds(store, { query: QUERY, top_k: 3 })).toEqual(["u", "a"]);
    store.close();
  });

  it("does not reach a neighbouring turn outside the searched scope", () => {
    const store = openStore();
    store.importRecords([turnRecord(question, { scope: "project:a" }), turnRecord(answer, { scope: "project:b" })]);
    expect(searchIds(store, { query: "books library", scope: "project:a" })).toEqual(["q"]);
    expect(searchIds(store, { query: "books library" })).toEqual(["a", "q"]);
    store.close();
  });

  it("lends context between Chinese turns too", () => {
    const store = openStore();
    store.importRecords([
      { id: "zh-q", text: "你家的备用钥匙现在放在哪里？", source_type: "user_message", session_id: "chat-zh", turn: 1 },
      { id: "zh-a", text: "在门口的花盆下面。", source_type: "assistant_message", session_id: "chat-zh", turn: 2 },
      { id: "zh-u", text: "花盆里的花开了。", source_type: "user_message" },
    ]);
    expect(searchIds(store, { query: "备用钥匙放在哪里 花盆", top_k: 3 })).toEqual(["zh-a", "zh-u", "zh-q"]);
    store.close();
  });
});
