// "Latest" on what capture really stores, through the real store: questions, acknowledgements and
// answers around the facts, states changed hundreds of times, and changes that are not locations.
import { MemoryStore } from "../../bridge/store/memory-store";
import { parseSearchRequest } from "../../bridge/store/search-request";
import { makeTrivia } from "../fixtures/trivia";
import { openStore, tempDir } from "./helpers";

const HOUR_MS = 3_600_000;
const T0 = Date.UTC(2026, 0, 1);

interface Turn {
  user: string;
  assistant?: string;
}

/** Writes turns as capture does: one session per turn, the user's message and the reply as two memories. */
function capture(store: MemoryStore, turns: Turn[], startHour = 0): void {
  turns.forEach((turn, i) => {
    const at = T0 + (startHour + i) * HOUR_MS;
    const session = `s${startHour + i}`;
    const records = [{ id: `turn:${session}:1:user`, text: turn.user, source_type: "user_message", timestamp_ms: at, session_id: session, turn: 1 }];
    if (turn.assistant) records.push({ id: `turn:${session}:1:assistant`, text: turn.assistant, source_type: "assistant_message", timestamp_ms: at + 1000, session_id: session, turn: 1 });
    store.importRecords(records);
  });
}

const search = (store: MemoryStore, query: string, extra: Record<string, unknown> = {}) => store.search(parseSearchRequest({ query, top_k: 5, ...extra }));
const user = (hour: number) => `turn:s${hour}:1:user`;
const reply = (hour: number) => `turn:s${hour}:1:assistant`;

describe("a question asked after a fact", () => {
  it.each([
    ["zh", "钥匙放在鞋柜里了。", "好的，记下了。", "钥匙在哪里？", "抱歉，我不知道。"],
    ["en", "My passport is in the desk drawer.", "Noted.", "Where is my passport?", "Sorry, I don't know."],
  ])("never supersedes it or outranks it, and the bare replies add nothing (%s)", (_lang, fact, ack, question, idk) => {
    const store = openStore();
    capture(store, [{ user: fact, assistant: ack }, { user: question, assistant: idk }]);
    const { results, receipt } = search(store, question);
    expect(results.map((r) => r.id)).toEqual([user(0), user(1)]);
    expect(receipt.conflicts).toEqual([]);
    expect(receipt.withheld).toEqual(expect.arrayContaining([{ id: reply(0), reason: "acknowledgement only" }]));
    expect(results.map((r) => r.id)).not.toContain(reply(1));
    store.close();
  });

  it.each([
    ["reply first", false],
    ["message first", true],
  ])("reads a message its reply answered 'I don't know' as asked, whatever its phrasing (%s)", (_order, messageFirst) => {
    const store = openStore();
    capture(store, [{ user: "我把护照放在书桌抽屉里了。", assistant: "好的，记住了。" }]);
    const asked = { id: user(1), text: "我记得护照放在保险柜里。", source_type: "user_message", timestamp_ms: T0 + HOUR_MS, session_id: "s1", turn: 1 };
    const idk = { id: reply(1), text: "抱歉，我不知道。", source_type: "assistant_message", timestamp_ms: T0 + HOUR_MS + 1000, session_id: "s1", turn: 1 };
    store.importRecords(messageFirst ? [asked, idk] : [idk, asked]);
    const { results, receipt } = search(store, "护照在哪里？");
    expect(results[0].id).toBe(user(0));
    expect(receipt.candidates.find((c) => c.id === user(1))?.act).toBe("question");
    store.close();
  });

  it.each([
    ["zh", "我妈的手机号是13912345678。", "我又忘了，我妈手机号多少来着？", "我妈的手机号是多少？"],
    ["en", "My mum's phone number is 07700 900123.", "Sorry, I forgot again, what's my mum's number?", "What is my mum's phone number now?"],
  ])("is not outrun by a later question that says why it asks (%s)", (_lang, fact, question, query) => {
    const store = openStore();
    capture(store, [{ user: fact }, { user: question }]);
    const { results, receipt } = search(store, query);
    expect(results[0].id).toBe(user(0));
    expect(receipt.slots[0]).toMatchObject({ current_id: user(0), newer_statement_id: null });
    expect(receipt.candidates.find((c) => c.id === user(1))?.act).toBe("question");
    store.close();
  });

  it("is still what recall gives after the question was asked fifty times and answered 'I don't know'", () => {
    const store = openStore();
    capture(store, [{ user: "我把护照放在书桌抽屉里了。", assistant: "好的，记住了。" }]);
    capture(store, Array.from({ length: 50 }, () => ({ user: "护照在哪里？", assistant: "抱歉，我不知道。" })), 1);
    const { results, receipt } = search(store, "护照在哪里？");
    expect(results[0].id).toBe(user(0));
    expect(results.slice(1).every((r) => r.text === "护照在哪里？")).toBe(true);
    expect(receipt.slots).toEqual([{ kind: "location", subject: "护照", attribute: null, current_id: user(0), current_value: "书桌抽屉", newer_statement_id: null }]);
    store.close();
  });
});

describe("a state changed hundreds of times among months of chit-chat", () => {
  const PLACES = ["鞋柜", "花盆", "抽屉", "书包", "玄关柜"];
  let store: MemoryStore;
  beforeAll(() => {
    store = openStore();
    const filler = makeTrivia(2_000, 3).map((text, i) => ({ id: `f-${i}`, text, source_type: "user_message", timestamp_ms: T0 + i * HOUR_MS }));
    store.importRecords(filler);
    // 300 moves, each at a later hour than the filler it sits among; some asked about in between.
    const moves = Array.from({ length: 300 }, (_, i) => ({
      id: `move-${i}`,
      text: i % 3 === 0 ? `我把钥匙放到了${PLACES[i % 5]}里。` : i % 3 === 1 ? `钥匙现在在${PLACES[i % 5]}里。` : `钥匙放在${PLACES[i % 5]}里了`,
      source_type: "user_message",
      timestamp_ms: T0 + (i * 6 + 1) * HOUR_MS + 1,
    }));
    const questions = Array.from({ length: 100 }, (_, i) => ({ id: `ask-${i}`, text: "钥匙在哪里？", source_type: "user_message", timestamp_ms: T0 + (i * 18 + 4) * HOUR_MS + 2 }));
    store.importRecords([...moves, ...questions]);
  });
  afterAll(() => store.close());

  it("recalls the newest value first, whatever the lexical ranks", () => {
    const { results, receipt } = search(store, "钥匙现在在哪里？");
    expect(results[0].id).toBe("move-299");
    expect(receipt.slots[0]).toMatchObject({ kind: "location", subject: "钥匙", current_id: "move-299", current_value: PLACES[299 % 5] });
  });

  it("reports the older values as one collapsed line per slot, with every one in the conflicts list", () => {
    const { receipt } = search(store, "钥匙现在在哪里？");
    expect(receipt.collapsed_slots).toEqual([{ kind: "location", subject: "钥匙", attribute: null, superseded: receipt.conflicts.length, current_id: "move-299", current_value: PLACES[299 % 5] }]);
    expect(receipt.conflicts.length).toBeGreaterThan(0);
    expect(receipt.conflicts.every((c) => c.id.startsWith("move-"))).toBe(true);
  });

  it("follows a forget and a quarantine of the newest value back to the one before", () => {
    const dir = tempDir();
    const local = openStore(dir);
    local.importRecords([
      { id: "a", text: "钥匙放在鞋柜里了", source_type: "user_message", timestamp_ms: 1 },
      { id: "b", text: "钥匙放在花盆里了", source_type: "user_message", timestamp_ms: 2 },
      { id: "c", text: "钥匙放在抽屉里了", source_type: "user_message", timestamp_ms: 3 },
    ]);
    expect(search(local, "钥匙在哪？").results[0].id).toBe("c");
    local.quarantine("c", "test");
    expect(search(local, "钥匙在哪？").results[0].id).toBe("b");
    local.forget("b");
    expect(search(local, "钥匙在哪？").results[0].id).toBe("a");
    local.release("c");
    expect(search(local, "钥匙在哪？").results[0].id).toBe("c");
    local.close();
    const reopened = openStore(dir);
    expect(search(reopened, "钥匙在哪？").results.map((r) => r.id)).toEqual(["c"]);
    reopened.close();
  });
});

describe("changes that are not locations", () => {
  it.each([
    ["preference zh", ["我最喜欢的饮料是拿铁", "我现在最喜欢的饮料是乌龙茶"], "我最喜欢喝什么？"],
    ["preference en", ["My favourite drink is latte.", "My favorite drink is now green tea."], "What's my favourite drink?"],
    ["schedule zh", ["牙医预约在周三下午三点", "牙医预约改到了周五上午十点"], "牙医预约是什么时候？"],
    ["schedule en", ["The team meeting is on Monday at 10am.", "The team meeting was moved to Thursday at 2pm."], "When is the team meeting?"],
    ["residence zh", ["我住在成都", "我搬到了杭州"], "我现在住在哪个城市？"],
    ["residence en", ["My sister lives in Boston.", "My sister moved to Seattle."], "Where does my sister live now?"],
    ["workplace zh", ["我在腾讯上班", "我跳槽到了字节跳动"], "我现在在哪家公司工作？"],
    ["workplace en", ["I work at Acme.", "I started a new job at Globex."], "Where do I work now?"],
    ["contact zh", ["我的手机号是13800000000", "我换了新号码：13912345678"], "我的手机号是多少？"],
    ["contact en", ["My email is sam@example.com", "My new email is sam.lee@example.org"], "What's my email address?"],
    ["count zh", ["我有3只猫", "我家现在养了4只猫"], "我有几只猫？"],
    ["count en", ["I have 2 dogs.", "We now have three dogs."], "How many dogs do I have?"],
  ])("recalls the newer of two statements first (%s)", (_name, [older, newer], query) => {
    const store = openStore();
    capture(store, [{ user: older, assistant: "好的。" }, ...Array.from({ length: 5 }, (_, i) => ({ user: `闲聊第${i}条：今天天气不错。` })), { user: newer, assistant: "Got it." }]);
    const { results } = search(store, query);
    expect(results[0].id).toBe(user(6));
    expect(results.map((r) => r.id)).not.toContain(user(0));
    store.close();
  });

  it("keeps two things apart when one name only ends with the other", () => {
    const store = openStore();
    capture(store, [{ user: "钥匙放在鞋柜里了" }, { user: "车钥匙放在抽屉里了" }]);
    const { results, receipt } = search(store, "钥匙在哪里？");
    expect(results.map((r) => r.id).slice(0, 2)).toEqual([user(0), user(1)]);
    expect(receipt.conflicts).toEqual([]);
    expect(search(store, "车钥匙在哪里？").results[0].id).toBe(user(1));
    store.close();
  });

  it.each([
    ["an owner said or not", ["儿子的家长会在周四晚上7点", "家长会延期到下周五下午"], ["儿子家长会什么时候", "家长会是几点？"]],
    ["an event without its head noun", ["科目二考试约在了11月20号", "科目二又提前了，提前到11月18号上午"], ["驾照科目二考试在哪天", "科目二考试是什么时候"]],
    ["how often it recurs", ["Our weekly team meeting is Mondays at 10", "They moved the team meeting to Friday at 4pm"], ["what time is the weekly team meeting", "When is the team meeting?"]],
  ])("reads one thing under two names as one slot (%s)", (_name, [older, newer], queries) => {
    const store = openStore();
    capture(store, [{ user: older }, { user: newer }]);
    for (const query of queries) {
      const { results, receipt } = search(store, query);
      expect(results[0].id).toBe(user(1));
      expect(receipt.conflicts.map((c: { id: string }) => c.id)).toEqual([user(0)]);
      expect(receipt.slots[0].current_id).toBe(user(1));
    }
    store.close();
  });

  it("reads a person's move to a known workplace as a job change, and a thing left there as where it is", () => {
    const store = openStore();
    capture(store, [
      { user: "My uncle works at Globex." },
      { user: "My grandma works at Initech." },
      { user: "My grandma lives in Prague." },
      { user: "My grandma moved to Globex from Umbrella Labs." },
      { user: "I left the laptop at Globex." },
    ]);
    const home = search(store, "Which city does my grandma live in?");
    expect(home.results[0].id).toBe(user(2));
    expect(home.receipt.conflicts.map((c) => c.id)).not.toContain(user(2));
    const job = search(store, "Where does my grandma work now?");
    expect(job.results[0].id).toBe(user(3));
    expect(job.receipt.slots[0]).toMatchObject({ kind: "workplace", current_id: user(3) });
    expect(job.receipt.conflicts).toEqual(expect.arrayContaining([expect.objectContaining({ id: user(1), superseded_by: user(3) })]));
    expect(search(store, "Where is my laptop?").results[0].id).toBe(user(4));
    store.close();
  });

  it("answers where someone works with their workplace even when where they live changed later", () => {
    const store = openStore();
    capture(store, [{ user: "My aunt now works at Wonka." }, { user: "My aunt lives in Leeds now." }]);
    expect(search(store, "Where does my aunt work now?").results[0].id).toBe(user(0));
    expect(search(store, "Where does my aunt live?").results[0].id).toBe(user(1));
    store.close();
  });

  it.each([
    ["zh", ["护照放在保险柜里。", "护照现在在我妈那儿。"], "护照还在保险柜里吗？"],
    ["en", ["Priya works at Unilever.", "Priya joined Monzo."], "Does Priya still work at Unilever?"],
  ])("answers 'is it still…?' with the newest value (%s)", (_lang, [older, newer], query) => {
    const store = openStore();
    capture(store, [{ user: older }, { user: newer }]);
    expect(search(store, query).results[0].id).toBe(user(1));
    store.close();
  });

  it("never lets an assistant's stale restatement become the newest value, but follows one that restates its turn", () => {
    const store = openStore();
    capture(store, [
      { user: "钥匙放在花盆里了", assistant: "好的。" },
      { user: "钥匙在哪？", assistant: "你的钥匙在鞋柜里。" },
      { user: "我现在更喜欢吃坚果", assistant: "好的，记住了：你最喜欢的零食是坚果。" },
      { user: "我最喜欢的零食是薯片" },
    ]);
    expect(search(store, "钥匙在哪里？").results[0].id).toBe(user(0));
    const snack = search(store, "我最喜欢的零食是什么？");
    expect(snack.results[0].id).toBe(user(3));
    expect(snack.receipt.conflicts.map((c) => c.id)).toContain(reply(2));
    store.close();
  });

  it("asks a slot only in the query's scope", () => {
    const store = openStore();
    store.importRecords([
      { id: "a", text: "钥匙放在鞋柜里了", source_type: "user_message", timestamp_ms: 1, scope: "project:home" },
      { id: "b", text: "钥匙放在抽屉里了", source_type: "user_message", timestamp_ms: 2, scope: "project:work" },
    ]);
    expect(search(store, "钥匙在哪？", { scope: "project:home" }).results.map((r) => r.id)).toEqual(["a"]);
    expect(search(store, "钥匙在哪？").results.map((r) => r.id)).toEqual(["b"]);
    store.close();
  });
});

describe("a favourite said without its category", () => {
  it("joins the category some statement has named its value under, and no other", () => {
    const store = openStore();
    capture(store, [{ user: "我妹最喜欢的零食是海苔。" }, { user: "我最喜欢的零食是巧克力。" }, { user: "我最喜欢的水果是芒果。" }, { user: "最近最爱吃海苔了。" }]);
    expect(search(store, "我现在最喜欢的零食是什么？").results[0].id).toBe(user(3));
    expect(search(store, "我现在最喜欢的水果是什么？").results[0].id).toBe(user(2));
    store.close();
  });

  it("joins by its verb the one named category of that verb, shown first but replacing nothing", () => {
    const store = openStore();
    capture(store, [{ user: "我最喜欢的作家是余华。" }, { user: "我现在更喜欢读刘慈欣。" }]);
    const { results, receipt } = search(store, "我现在最喜欢的作家是什么？");
    expect(results.map((r) => r.id)).toEqual([user(1), user(0)]);
    expect(receipt.conflicts).toEqual([]);
    store.close();
  });

  it("joins no category by its verb when two named categories take that verb", () => {
    const store = openStore();
    capture(store, [{ user: "我最喜欢的零食是薯片。" }, { user: "我最喜欢的水果是芒果。" }, { user: "我现在更喜欢吃坚果。" }]);
    expect(search(store, "我现在最喜欢的零食是什么？").results[0].id).toBe(user(0));
    expect(search(store, "我现在最喜欢的水果是什么？").results[0].id).toBe(user(1));
    store.close();
  });

  it("learns the category from any statement, the assistant's too, and unlearns it when that is forgotten", () => {
    const store = openStore();
    // Two named categories take 吃, so only the value can tell which one 海苔 belongs to.
    capture(store, [{ user: "我最喜欢的零食是薯片。" }, { user: "我最喜欢的水果是芒果。" }, { user: "零食推荐一个？", assistant: "很多人最喜欢的零食是海苔。" }, { user: "我现在更喜欢吃海苔。" }]);
    expect(search(store, "我现在最喜欢的零食是什么？").results[0].id).toBe(user(3));
    store.forget(reply(2));
    expect(search(store, "我现在最喜欢的零食是什么？").results[0].id).toBe(user(0));
    store.close();
  });
});

describe("a change the slot grammar cannot read", () => {
  it.each([
    ["zh", ["钥匙放在花盆里了。", "钥匙放在鞋柜里了。", "钥匙的话，最后还是回到了花盆。"], "钥匙在哪里？"],
    ["en", ["The dentist appointment is on Monday at 10am.", "The dentist appointment was moved to Wednesday at 9am.", "About the dentist appointment, it's Friday at 3pm after all."], "When is the dentist appointment?"],
  ])("comes first when it names the slot's subject with a value of its kind, before the head it follows (%s)", (_lang, statements, query) => {
    const store = openStore();
    capture(store, statements.map((text) => ({ user: text, assistant: text.match(/\p{Script=Han}/u) ? "好的。" : "Noted." })));
    const { results, receipt } = search(store, query);
    expect(results.map((r) => r.id).slice(0, 2)).toEqual([user(2), user(1)]);
    expect(receipt.slots[0]).toMatchObject({ current_id: user(1), newer_statement_id: user(2) });
    expect(receipt.candidates.find((c) => c.id === user(2))?.slot).toBe(true);
    store.close();
  });

  it("is found however many statements about the subject's other slots came after it", () => {
    const store = openStore();
    capture(store, [{ user: "我妹住在武汉。" }, { user: "我爸住在成都。" }, { user: "我爸如今在武汉那边生活得挺好。" }]);
    capture(store, Array.from({ length: 150 }, (_, i) => ({ user: `我爸在第${i}号工地上班。` })), 3);
    const { results, receipt } = search(store, "我爸现在住在哪？");
    expect(receipt.slots.find((s) => s.kind === "location")).toMatchObject({ current_id: user(1), newer_statement_id: user(2) });
    expect(results[0].id).toBe(user(2));
    store.close();
  });

  it.each([
    ["someone else's thing", { user: "邻居又把钥匙弄丢了，在花盆里找到的。" }],
    ["another thing with a longer name", { user: "车钥匙在花盆里。" }],
    ["the assistant repeating a value", { user: "我的钥匙呢？", assistant: "你的钥匙在花盆里。" }],
    ["a value no statement of the kind has held", { user: "钥匙的话，最后还是回到了月球。" }],
    ["a question", { user: "钥匙还在花盆里吗？" }],
  ])("does not come first when it is %s", (_what, later) => {
    const store = openStore();
    capture(store, [{ user: "护照放在花盆里了。" }, { user: "钥匙放在鞋柜里了。" }, later]);
    const { results, receipt } = search(store, "钥匙在哪里？");
    expect(results[0].id).toBe(user(1));
    expect(receipt.slots.find((s) => s.subject === "钥匙")).toMatchObject({ current_id: user(1), newer_statement_id: null });
    store.close();
  });
});

describe("a query for how something is now", () => {
  it.each([
    ["zh", ["头发染成栗色了。", "头发染成粉色了。"], "我现在头发什么颜色？"],
    ["en", ["The dentist appointment is on Monday at 10am.", "The dentist appointment was moved to Friday at 3pm."], "And the dentist appointment now?"],
  ])("asks about the slot it names exactly, even without a question word of its kind (%s)", (_lang, statements, query) => {
    const store = openStore();
    capture(store, statements.map((text) => ({ user: text })));
    const { results, receipt } = search(store, query);
    expect(results[0].id).toBe(user(1));
    expect(receipt.slots).toHaveLength(1);
    expect(receipt.slots[0].current_id).toBe(user(1));
    store.close();
  });

  it("reads the measure a question word asks for, and takes a newer weighing the grammar could not read", () => {
    const store = openStore();
    capture(store, [{ user: "我现在体重70公斤" }, { user: "体重嘛，今早一称65公斤" }]);
    const { results, receipt } = search(store, "我现在多重");
    expect(receipt.slots[0]).toMatchObject({ subject: "(self)", attribute: "体重", current_id: user(0), newer_statement_id: user(1) });
    expect(results.map((r) => r.id)).toEqual([user(1), user(0)]);
    store.close();
  });

  it("asks the field a longer word names, not the shorter word inside it", () => {
    const store = openStore();
    capture(store, [
      { user: "My aunt's email address is jo@example.com." },
      { user: "My aunt's phone number is 555-0100." },
      { user: "My aunt's home address changed to 12 Elm Street." },
      { user: "My aunt's work phone is 555-0185." },
    ]);
    expect(search(store, "What's my aunt's current email address?").results[0].id).toBe(user(0));
    expect(search(store, "What's my aunt's current email address?").receipt.slots.map((s) => s.attribute)).toEqual(["email"]);
    expect(search(store, "What's my aunt's phone number now?").receipt.slots.map((s) => s.attribute)).toEqual(["phone"]);
    expect(search(store, "What's my aunt's current work phone?").results[0].id).toBe(user(3));
    store.close();
  });

  it("asks every contact field of someone when the query asks how to reach them and names no field", () => {
    const store = openStore();
    capture(store, [{ user: "房东的电话是13611112222" }, { user: "房东的邮箱是landlord@example.com" }, { user: "房东的新号码：13633334444。" }]);
    const reach = search(store, "怎么联系房东来着");
    expect(reach.receipt.slots.map((s) => s.attribute).sort()).toEqual(["email", "phone"]);
    expect(reach.results[0].id).toBe(user(2));
    expect(search(store, "房东的邮箱是什么？").receipt.slots.map((s) => s.attribute)).toEqual(["email"]);
    store.close();
  });

  it("asks how to reach the person the query names, not also the asker's own contact data", () => {
    const store = openStore();
    capture(store, [{ user: "My dad's phone number is +44 7700 900746." }, { user: "My address is 12 Elm Street." }, { user: "My dad's phone number was switched to +44 7700 900853." }]);
    const reach = search(store, "How do I reach my dad at this point?");
    expect(reach.receipt.slots.map((s) => [s.subject, s.attribute])).toEqual([["dad", "phone"]]);
    expect(reach.results[0].id).toBe(user(2));
    store.close();
  });

  it.each([
    ["我姐如今定居何处？", ["我姐住在成都", "我姐搬到了杭州"]],
    ["Which town is my sister settled in these days?", ["My sister lives in Boston.", "My sister moved to Seattle."]],
  ])("reads where someone lives from more ways to ask it: %s", (query, statements) => {
    const store = openStore();
    capture(store, statements.map((text) => ({ user: text })));
    const { results, receipt } = search(store, query);
    expect(receipt.slots[0]).toMatchObject({ kind: "location", current_id: user(1) });
    expect(results[0].id).toBe(user(1));
    store.close();
  });

  it("reads 'most recently' as asking for the state now", () => {
    const store = openStore();
    capture(store, [{ user: "My savings goal is 20000 pounds." }, { user: "My savings goal these days is 9000 pounds." }]);
    const { results, receipt } = search(store, "What did my savings goal change to most recently?");
    expect(receipt.slots[0]).toMatchObject({ attribute: "savings goal", current_id: user(1) });
    expect(results[0].id).toBe(user(1));
    store.close();
  });

  it("does not ask where a person lives or works because the query names them with 'now'", () => {
    const store = openStore();
    capture(store, [{ user: "Melanie lives in Boston." }, { user: "Melanie moved to Denver." }]);
    expect(search(store, "What is Melanie painting now?").receipt.slots).toEqual([]);
    expect(search(store, "Where does Melanie live now?").receipt.slots[0]).toMatchObject({ subject: "melanie", current_id: user(1) });
    store.close();
  });
});

describe("timeline mode and recency", () => {
  it("shows every statement of a short history in ascending time, questions included and acknowledgements withheld", () => {
    const store = openStore();
    capture(store, [
      { user: "钥匙放在鞋柜里了", assistant: "好的，记下了。" },
      { user: "钥匙在哪？", assistant: "在鞋柜里。" },
      { user: "我把钥匙放到了花盆里", assistant: "收到。" },
      { user: "钥匙现在在抽屉里", assistant: "好的。" },
    ]);
    const { results, receipt } = search(store, "钥匙的位置是怎么变化的？", { timeline: true, top_k: 10 });
    const ids = results.map((r) => r.id);
    expect(ids.filter((id) => [user(0), user(2), user(3)].includes(id))).toEqual([user(0), user(2), user(3)]);
    expect(ids).toContain(user(1));
    expect(results.map((r) => r.timestamp_ms)).toEqual([...results.map((r) => r.timestamp_ms)].sort((a, b) => a - b));
    expect(receipt.conflicts).toEqual([]);
    expect(ids).not.toContain(reply(0));
    store.close();
  });

  it("follows the thing the query names exactly, takes in statements the grammar could not read, and shows a restated turn once", () => {
    const store = openStore();
    capture(store, [
      { user: "钥匙放在鞋柜里了", assistant: "好的，记住了：钥匙在鞋柜里。" },
      { user: "车钥匙在花盆里。", assistant: "收到，车钥匙放在花盆里。" },
      { user: "我把钥匙挪到了花盆里", assistant: "收到。" },
      { user: "车钥匙在衣柜里。" },
      { user: "钥匙的话，最后还是回到了鞋柜。" },
    ]);
    const keys = search(store, "钥匙的位置是怎么变化的？", { timeline: true, top_k: 10 });
    // The slot's statements, each turn once (the reply restating turn 0 is not one of them), oldest first.
    expect(keys.receipt.candidates.filter((c) => c.slot).map((c) => c.id).sort()).toEqual([user(0), user(2), user(4)].sort());
    expect(keys.results.map((r) => r.id).filter((id) => [user(0), user(2), user(4)].includes(id))).toEqual([user(0), user(2), user(4)]);
    const carKeys = search(store, "车钥匙的位置是怎么变化的？", { timeline: true, top_k: 10 });
    expect(carKeys.receipt.candidates.filter((c) => c.slot).map((c) => c.id).sort()).toEqual([user(1), user(3)].sort());
    expect(carKeys.results.map((r) => r.id).filter((id) => id === user(1) || id === user(3))).toEqual([user(1), user(3)]);
    store.close();
  });

  it("reads a count said many ways as one slot, asked by the thing counted", () => {
    const store = openStore();
    capture(store, [{ user: "我有3只乌龟。" }, { user: "我家电动车的数量是2辆" }, { user: "乌龟的数量现在是5。" }, { user: "我的乌龟数量变成了6只。" }]);
    const { results, receipt } = search(store, "我的乌龟数量是怎么变化的？", { timeline: true });
    expect(receipt.slots.map((s) => [s.subject, s.attribute])).toEqual([["(self)", "乌龟"]]);
    expect(results.map((r) => r.id).filter((id) => id !== user(1))).toEqual([user(0), user(2), user(3)]);
    expect(search(store, "我现在有几只乌龟？").results[0].id).toBe(user(3));
    store.close();
  });

  it.each([
    ["zh", ["读书会在周五晚上7点。", "读书会改到周六下午3点了。", "读书会定在周日上午10点。"], "读书会的来龙去脉"],
    ["en", ["The book club is on Friday at 7pm.", "The book club was moved to Saturday at 3pm.", "The book club is set for Sunday at 10am."], "The book club, start to finish"],
  ])("follows in timeline mode what the query names exactly, though no word says which kind (%s)", (_lang, statements, query) => {
    const store = openStore();
    capture(store, statements.map((text) => ({ user: text })));
    const { results, receipt } = search(store, query, { timeline: true });
    expect(receipt.slots.map((s) => s.kind)).toEqual(["schedule"]);
    expect(results.map((r) => r.id)).toEqual([user(0), user(1), user(2)]);
    // Latest mode reads question words as before: without one, nothing is asked.
    expect(search(store, query).receipt.slots).toEqual([]);
    store.close();
  });

  it("asks the speaker's own measure a query names exactly, whatever its other words suggest", () => {
    const store = openStore();
    capture(store, [{ user: "My daily step goal is 8000 steps." }, { user: "My favourite book is Dune." }, { user: "Lately my daily step goal dropped to 6000 steps." }, { user: "My daily step goal held steady at 7000 steps this week." }]);
    // "reading" alone would ask for the favourite book.
    const { results, receipt } = search(store, "Every daily step goal reading I've had?", { timeline: true });
    expect(receipt.slots.map((s) => [s.kind, s.attribute])).toEqual([["state", "step goal"]]);
    expect(results.map((r) => r.id).filter((id) => id !== user(1))).toEqual([user(0), user(2), user(3)]);
    store.close();
  });

  it("tells a thing's story in order: every statement naming it, not someone else's, not another colour's", () => {
    const store = openStore();
    capture(store, [
      { user: "A friend gave me a green alarm clock.", assistant: "Nice!" },
      { user: "I ordered a white alarm clock online." },
      { user: "My neighbour lost his green alarm clock again." },
      { user: "I broke the green alarm clock.", assistant: "Oh no." },
      { user: "Where is the nearest repair shop?" },
      { user: "I took the green alarm clock in for repair." },
    ]);
    const { results, receipt } = search(store, "Tell me the history of my green alarm clock in order.", { timeline: true, top_k: 10 });
    expect(receipt.candidates.filter((c) => c.slot).map((c) => c.id).sort()).toEqual([user(0), user(3), user(5)].sort());
    expect(results.map((r) => r.id).filter((id) => [user(0), user(3), user(5)].includes(id))).toEqual([user(0), user(3), user(5)]);
    store.close();
  });

  it("follows where someone lived, not also where they worked, when the query says 'lived'", () => {
    const store = openStore();
    capture(store, [
      { user: "My grandma relocated to Prague last month." },
      { user: "My grandma got an offer from Wonka and took it." },
      { user: "My grandma relocated to Dublin last month." },
      { user: "My grandma now works for Globex." },
      { user: "My grandma calls Seattle home now." },
    ]);
    const { results, receipt } = search(store, "All the places my grandma lived over the years", { timeline: true, top_k: 3 });
    expect(receipt.slots.map((s) => [s.kind, s.subject])).toEqual([["location", "grandma"]]);
    expect(results.map((r) => r.id)).toEqual([user(0), user(2), user(4)]);
    store.close();
  });

  it.each([
    ["花方面我现在偏爱什么", ["要说花，我现在首选玫瑰。", "最近迷上了百合，花就它了。"]],
    ["What's my go-to instrument these days", ["Piano has become my go-to instrument.", "Can't get enough of ukulele lately, best instrument there is."]],
  ])("asks the favourite a query names by '偏爱' or 'go-to', newest first: %s", (query, statements) => {
    const store = openStore();
    capture(store, [{ user: statements[0] }, { user: "我现在偏爱哪种作家来着？" }, { user: statements[1] }]);
    const { results, receipt } = search(store, query);
    expect(receipt.slots[0]).toMatchObject({ kind: "preference", current_id: user(2) });
    expect(results[0].id).toBe(user(2));
    store.close();
  });

  it.each([
    ["traditional statements, a simplified question", ["護照放在保險櫃裡了。", "護照已經收到書桌抽屜裡囉"], "护照现在在哪里？"],
    ["simplified statements, a traditional question", ["护照放在保险柜里了。", "护照已经收到书桌抽屉里了"], "護照現在放在哪裡？"],
  ])("reads traditional and simplified Chinese as one: %s", (_case, statements, query) => {
    const store = openStore();
    capture(store, [{ user: statements[0] }, { user: "護照在哪裡啊？" }, { user: statements[1] }]);
    const { results, receipt } = search(store, query);
    expect(receipt.slots[0]).toMatchObject({ kind: "location", subject: "护照", current_id: user(2) });
    expect(results[0].id).toBe(user(2));
    // The stored text is what the user wrote.
    expect(results[0].text).toBe(statements[1]);
    store.close();
  });

  it("does not take 书 in 书包 for a favourite book category", () => {
    const store = openStore();
    capture(store, [{ user: "我最喜欢的书是《活着》。" }, { user: "买了一个紫色书包。" }, { user: "紫色书包的拉链坏了。" }]);
    const { receipt } = search(store, "紫色书包后来怎么样了？按时间顺序说说。", { timeline: true });
    expect(receipt.slots).toEqual([]);
    expect(receipt.candidates.filter((c) => c.slot).map((c) => c.id).sort()).toEqual([user(1), user(2)].sort());
    store.close();
  });

  it("puts the newer of two near-equal candidates first in latest mode, and keeps rank order otherwise", () => {
    const store = openStore();
    store.importRecords([
      { id: "old", text: "周末去了那家新开的咖啡店", source_type: "user_message", timestamp_ms: 1 },
      { id: "new", text: "周末去了那家新开的咖啡店", source_type: "user_message", timestamp_ms: 9 },
      { id: "best", text: "咖啡店 咖啡店 咖啡店 新开的咖啡店", source_type: "user_message", timestamp_ms: 0 },
    ]);
    expect(search(store, "新开的咖啡店").results.map((r) => r.id)).toEqual(["best", "new", "old"]);
    store.close();
  });
});
