// The demo's scripted conversation (Chinese and English, over eleven days) and its questions. The
// replies state nothing about where things are, so every state change comes from the user.

export interface DemoTurn {
  day: number;
  user: string;
  assistant: string;
}

export const DEMO_TURNS: DemoTurn[] = [
  { day: 0, user: "今天逛街买了一个星巴克的蓝色马克杯。", assistant: "好看！蓝色很适合早上的咖啡。" },
  { day: 1, user: "钥匙放在鞋柜里了，提醒我一下。", assistant: "好的，记下了。" },
  { day: 2, user: "My passport is in the desk drawer.", assistant: "Noted." },
  { day: 3, user: "I adopted a puppy named Max today.", assistant: "Congratulations! What breed is he?" },
  { day: 5, user: "不小心把蓝色马克杯摔碎了，好可惜。", assistant: "太可惜了，没伤到手吧？" },
  { day: 6, user: "我把钥匙放到了花盆里，鞋柜太满了。", assistant: "好的，记下了。" },
  { day: 7, user: "I moved my passport to the safe in the closet.", assistant: "Got it." },
  { day: 9, user: "又买了一个新的蓝色马克杯作为替代。", assistant: "新杯子要好好保护哦。" },
  { day: 10, user: "Max learned to sit and shake hands.", assistant: "Good boy, Max!" },
];

export const DEMO_QUERIES: Array<{ title: string; request: Record<string, unknown> }> = [
  { title: "Latest state: where are the keys?", request: { query: "钥匙在哪里？", top_k: 3 } },
  { title: "Latest state in English", request: { query: "Where is my passport?", top_k: 3 } },
  { title: "Action sequence, latest mode (nothing collapses)", request: { query: "蓝色马克杯", top_k: 3 } },
  { title: "Timeline mode: the blue mug's whole history", request: { query: "蓝色马克杯的完整历史", top_k: 5, timeline: true } },
];

/** Asked in a new conversation: what the plugin adds to the model's context for it. */
export const DEMO_NEW_QUESTION = "我的蓝色马克杯后来怎么样了？";
export const DEMO_ANCHORS = ["回答要简短，用中文。"];
