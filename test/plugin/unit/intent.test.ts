import { detectIntent } from "../../../plugin/recall/intent";

describe("detectIntent", () => {
  it.each([
    "What is the history of my mug?",
    "Show me the timeline of the migration",
    "Give me the time line of our releases",
    "How has my weight moved over time?",
    "List my jobs chronologically",
    "In what order did we deploy the services?",
    "What was the sequence of events at the outage?",
    "What happened with the printer last week?",
    "How did my opinion of Rust change?",
    "How did the project evolve after the rewrite?",
    "Every time I asked about taxes, what did you tell me?",
    "Which restaurants have I liked so far?",
    "Tell me everything from the beginning",
    "What did I say about the trip to Kyoto?",
    "What have we done with the old laptop?",
  ])("reads the English question %j as timeline", (question) => {
    expect(detectIntent(question)).toBe("timeline");
  });

  it.each([
    "我的杯子的历史是什么？",
    "这件事的经过是怎样的？",
    "搬家的过程说一下",
    "按时间线列出我的工作",
    "这几件事的先后顺序是什么？",
    "这个项目的来龙去脉",
    "我的体重有什么变化？",
    "架构是怎么演变的？",
    "上周服务器发生了什么？",
    "每次我问你天气你怎么回答的？",
    "从头讲一遍",
    "我一直以来喝什么咖啡？",
    "我们都做了哪些尝试？",
    "我的蓝色马克杯后来怎么样了？",
  ])("reads the Chinese question %j as timeline", (question) => {
    expect(detectIntent(question)).toBe("timeline");
  });

  it.each([
    "where is my mug now?",
    "What is my current address?",
    "What's the latest version of the API?",
    "What did I eat?",
    "How do I change my password?",
    "Is the historical society open today?",
    "What time is it in Tokyo now?",
    "Who won the match?",
    "",
  ])("reads the English question %j as latest", (question) => {
    expect(detectIntent(question)).toBe("latest");
  });

  it.each(["我的杯子现在在哪里？", "我现在住在哪？", "最新的地址是什么", "我叫什么名字", "明天要带什么？"])("reads the Chinese question %j as latest", (question) => {
    expect(detectIntent(question)).toBe("latest");
  });

  it("ignores case in English cues", () => {
    expect(detectIntent("WHAT HAPPENED TO THE BUILD")).toBe("timeline");
  });
});
