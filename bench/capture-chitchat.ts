// Filler for the capture benchmark: combinatorial zh/en chit-chat (most of the volume, and what gives
// BM25 realistic statistics), acknowledgement-only turns, and distractors that mention planted words
// without stating a state. No query is phrased from filler, so it belongs to neither template half.
import type { Lang } from "./capture-templates";
import type { MentionKind } from "./capture-subjects";
import type { SeededRandom } from "./seeded-random";

export type FillerRole = "chit-chat" | "distractor" | "ack-turn";

export interface FillerTurn {
  role: FillerRole;
  user: string;
  assistant: string;
}

export type Mentions = Record<Lang, Partial<Record<MentionKind, string[]>>>;

type Pools = Record<string, readonly string[]>;

const ZH: Pools = {
  weather: ["天气很好", "下了一整天小雨", "阴沉沉的", "刮大风", "特别闷热", "突然降温了", "起了大雾", "出太阳了", "飘了点雪", "空气不太好"],
  plan: ["打算去公园走走", "只想在家躺着", "准备去图书馆", "约了朋友喝下午茶", "想去超市囤点菜", "计划把房间收拾一下", "准备早点睡", "想去河边跑步"],
  feeling: ["有点累", "心情不错", "挺开心的", "有点烦躁", "特别放松", "有点焦虑", "感觉很充实", "困得不行"],
  meal: ["早上", "中午", "晚上", "下午茶的时候", "夜宵"],
  food: ["牛肉面", "麻辣烫", "小笼包", "酸菜鱼", "煲仔饭", "寿司", "披萨", "烤鸭", "凉皮", "饺子", "炒河粉", "火锅", "沙拉", "咖喱饭", "馄饨", "烧烤", "螺蛳粉", "肠粉", "手抓饼", "卤肉饭"],
  taste: ["味道一般", "超级好吃", "有点咸", "分量很足", "性价比很高", "太辣了", "比上次好吃"],
  colleague: ["老板", "同事小王", "组长", "新来的实习生", "隔壁组的同事", "产品经理", "客户"],
  workEvent: ["开了三个会", "临时改了需求", "请我喝了咖啡", "在群里发了个通知", "提了一堆意见", "请假了", "讲了个冷笑话"],
  deliverable: ["季度报告", "项目方案", "测试用例", "产品文档", "预算表", "演示文稿"],
  show: ["一部老港片", "一部科幻剧", "那部获奖的纪录片", "一部日本动画", "一部悬疑剧", "一档综艺", "一部历史剧"],
  opinion: ["剧情挺紧凑的", "有点拖沓", "演员演得很好", "结局出乎意料", "画面特别美", "配乐很好听"],
  destination: ["云南", "海边", "日本", "新疆", "山里", "西藏", "泰国", "老家"],
  hobby: ["吉他", "书法", "瑜伽", "素描", "英语口语", "游泳", "围棋", "烘焙"],
  shop: ["超市", "菜市场", "网上", "商场", "便利店", "二手平台"],
  goods: ["一箱苹果", "一件毛衣", "几本书", "一盒茶叶", "新的床单", "一双拖鞋", "一袋大米", "洗衣液"],
  reaction: ["听起来不错", "挺有意思的", "辛苦了", "真棒", "确实", "哈哈，理解"],
  topic: [
    "人工智能", "房价", "育儿", "健身", "理财", "考研", "留学", "养生", "装修", "露营", "摄影", "咖啡豆", "汽车保养", "新能源车", "短视频", "读书打卡",
    "早睡早起", "断舍离", "二手房", "宠物医院", "马拉松", "直播带货", "社区团购", "地铁新线", "演唱会门票", "博物馆展览", "城市骑行", "徒步路线",
    "手冲咖啡", "茶艺", "插花", "陶艺", "剧本杀", "密室逃脱", "脱口秀", "相声", "京剧", "古风音乐", "电竞比赛", "世界杯", "奥运会", "冬奥",
    "天文观测", "流星雨", "日食", "潮汐", "台风", "梅雨季", "秋招", "年终奖", "五险一金", "个税", "公积金", "信用分", "垃圾分类", "共享单车",
    "外卖", "预制菜", "减脂餐", "轻断食", "植物肉", "燕麦奶", "露营装备", "钓鱼", "滑雪", "冲浪", "潜水", "攀岩", "飞盘", "腰背疼", "颈椎病",
  ],
  followup: ["要注意休息哦。", "你觉得怎么样？", "下次可以试试别的。", "周末好好放松一下吧。", "有需要随时找我。", "记得多喝水。"],
};

const EN: Pools = {
  weather: ["lovely and sunny", "raining all day", "grey and gloomy", "really windy", "muggy and hot", "suddenly cold", "foggy", "bright but chilly", "snowing a little", "hazy"],
  plan: ["going for a walk in the park", "staying in all day", "heading to the library", "meeting a friend for coffee", "doing a big grocery run", "tidying the flat", "going to bed early", "running by the river"],
  feeling: ["a bit tired", "in a good mood", "pretty happy", "a bit irritable", "really relaxed", "slightly anxious", "productive", "so sleepy"],
  meal: ["breakfast", "lunch", "dinner", "a late snack", "brunch"],
  food: ["ramen", "a burrito", "dumplings", "fish and chips", "a curry", "sushi", "pizza", "a roast", "pad thai", "a salad", "tacos", "pho", "a burger", "lasagne", "noodle soup", "falafel", "a stir-fry", "risotto", "a sandwich", "paella"],
  taste: ["it was okay", "it was amazing", "a bit salty", "huge portions", "great value", "way too spicy", "better than last time"],
  colleague: ["my manager", "a coworker", "the team lead", "the new intern", "someone from another team", "the product manager", "a client"],
  workEvent: ["booked three meetings", "changed the requirements again", "bought everyone coffee", "sent a long email", "had lots of feedback", "was off sick", "told a terrible joke"],
  deliverable: ["the quarterly report", "a project proposal", "test plans", "the product docs", "a budget sheet", "a slide deck"],
  show: ["an old Hong Kong film", "a sci-fi series", "that award-winning documentary", "a Japanese anime", "a crime drama", "a reality show", "a period drama"],
  opinion: ["the plot is tight", "it drags a bit", "the acting is great", "the ending surprised me", "it looks beautiful", "the soundtrack is lovely"],
  destination: ["the coast", "Scotland", "Japan", "the mountains", "Portugal", "Iceland", "my hometown", "the lakes"],
  hobby: ["guitar", "calligraphy", "yoga", "sketching", "Spanish", "swimming", "chess", "baking"],
  shop: ["the supermarket", "the market", "online", "the mall", "the corner shop", "a second-hand app"],
  goods: ["a box of apples", "a jumper", "a few books", "some tea", "new bed sheets", "slippers", "a bag of rice", "detergent"],
  reaction: ["Sounds nice", "That's interesting", "That sounds tiring", "Nice one", "Fair enough", "Ha, I get it"],
  topic: [
    "machine learning", "house prices", "parenting", "fitness", "investing", "grad school", "studying abroad", "wellness", "renovations", "camping",
    "photography", "coffee beans", "car servicing", "electric cars", "short videos", "reading challenges", "early nights", "decluttering",
    "vet bills", "marathons", "live shopping", "group buying", "the new tram line", "concert tickets", "a museum exhibition", "city cycling",
    "hiking routes", "pour-over coffee", "tea tasting", "flower arranging", "pottery", "murder mystery games", "escape rooms", "stand-up comedy",
    "opera", "folk music", "esports", "the World Cup", "the Olympics", "stargazing", "a meteor shower", "an eclipse", "tides", "a storm warning",
    "the rainy season", "graduate hiring", "annual bonuses", "pensions", "income tax", "mortgages", "credit scores", "recycling rules",
    "bike sharing", "takeaway apps", "meal prep", "intermittent fasting", "plant-based meat", "oat milk lattes", "fishing", "skiing", "surfing",
    "scuba diving", "bouldering", "ultimate frisbee", "back pain", "neck strain", "sourdough", "crosswords", "podcasts", "vinyl records",
  ],
  followup: ["Make sure you get some rest.", "How did you find it?", "Maybe try something new next time.", "Enjoy the weekend.", "Let me know if you need anything.", "Remember to drink some water."],
};

const CHAT: Record<Lang, string[]> = {
  zh: [
    "今天{weather}，{plan}。", "外面{weather}，{feeling}。", "{meal}吃了{food}，{taste}。", "晚上想做{food}，你有什么建议吗？",
    "{colleague}今天{workEvent}，{feeling}。", "这周要赶{deliverable}，{feeling}。", "最近在看{show}，{opinion}。",
    "明年想去{destination}玩，{feeling}。", "今天练了一会儿{hobby}，{feeling}。", "在{shop}买了{goods}，{taste}。", "周末{plan}，顺便吃了{food}。",
    "和{colleague}聊了半天{topic}，{feeling}。", "最近对{topic}很感兴趣，{plan}。", "刷到好多关于{topic}的帖子，{feeling}。",
  ],
  en: [
    "It's {weather} today, so I'm {plan}.", "It's {weather} out and I'm {feeling}.", "Had {food} for {meal}, {taste}.", "Thinking of making {food} tonight, any tips?",
    "{colleague} {workEvent} today, I'm {feeling}.", "Need to finish {deliverable} this week, feeling {feeling}.", "I've been watching {show}, {opinion}.",
    "I want to visit {destination} next year, I'm {feeling} about it.", "Practised some {hobby} today, {feeling}.", "Bought {goods} at {shop}, {taste}.", "This weekend I'm {plan} and having {food}.",
    "Talked about {topic} with {colleague} for ages, I'm {feeling}.", "I've been getting into {topic} lately.", "So many posts about {topic} today, I'm {feeling}.",
  ],
};
const REPLY: Record<Lang, string[]> = { zh: ["{reaction}！{followup}", "{reaction}。{followup}"], en: ["{reaction}! {followup}", "{reaction}. {followup}"] };

const DISTRACTORS: Record<Lang, Record<MentionKind, string[]>> = {
  zh: {
    thing: ["邻居又把{w}弄丢了，找了一晚上。", "超市里的{w}在打折。", "同事说他的{w}坏了。", "刷到一个讲{w}怎么挑的视频。"],
    place: ["今天路过花店，看到很多漂亮的{w}。", "家里的{w}该打扫一下了。", "朋友家的{w}特别好看。"],
    event: ["同事今天去{w}了，说挺顺利。", "群里好多人在聊{w}的事。"],
    item: ["朋友说她也很喜欢{w}。", "刚看到一篇关于{w}的文章。"],
    city: ["{w}今天下大雨。", "新闻里说{w}的房价又涨了。", "朋友下个月去{w}旅游。"],
    company: ["{w}今天发布了新产品。", "听说{w}在招人。"],
    attr: ["看到一篇文章讲怎么管理{w}。", "朋友问我{w}的事，我也说不清。"],
  },
  en: {
    thing: ["My neighbour lost his {w} again.", "The shop had {w} on sale.", "A coworker said her {w} broke.", "Watched a funny video about lost {w}."],
    place: ["Saw a lovely {w} at the market today.", "The {w} at my friend's place looks great.", "Our {w} really needs cleaning."],
    event: ["A coworker had a {w} today, said it went fine.", "Everyone in the group chat is talking about their {w}."],
    item: ["A friend said she loves {w} too.", "Read an article about {w} today."],
    city: ["It's raining hard in {w} today.", "The news says prices in {w} keep going up.", "A friend is travelling to {w} next month."],
    company: ["{w} announced a new product today.", "Heard {w} is hiring."],
    attr: ["Read a piece about keeping track of your {w}.", "A friend asked me about {w} stuff, no idea."],
  },
};

const ACK_USER: Record<Lang, string[]> = { zh: ["好的", "谢谢！", "嗯嗯", "哈哈", "好嘞", "行", "知道啦"], en: ["OK, thanks.", "Thanks!", "Cool.", "Great, thanks.", "ok", "Haha", "Right."] };
const ACK_ASSISTANT: Record<Lang, string[]> = { zh: ["不客气！", "随时找我。", "嗯，有事再说。"], en: ["You're welcome!", "Anytime.", "Happy to help."] };

export interface FillerMix {
  ackShare: number;
  distractorShare: number;
}

/** One filler turn; distractors only when `mentions` has words for the language. */
export function fillerTurn(rng: SeededRandom, lang: Lang, mentions: Mentions, mix: FillerMix): FillerTurn {
  const roll = rng.next();
  if (roll < mix.ackShare) return { role: "ack-turn", user: rng.pick(ACK_USER[lang]), assistant: rng.pick(ACK_ASSISTANT[lang]) };
  const kinds = (Object.keys(mentions[lang]) as MentionKind[]).filter((k) => (mentions[lang][k]?.length ?? 0) > 0);
  const pools = lang === "zh" ? ZH : EN;
  const assistant = expand(rng, rng.pick(REPLY[lang]), pools);
  if (roll < mix.ackShare + mix.distractorShare && kinds.length > 0) {
    const kind = rng.pick(kinds);
    const user = rng.pick(DISTRACTORS[lang][kind]).replace("{w}", rng.pick(mentions[lang][kind]!));
    return { role: "distractor", user: user.charAt(0).toUpperCase() + user.slice(1), assistant };
  }
  return { role: "chit-chat", user: expand(rng, rng.pick(CHAT[lang]), pools), assistant };
}

function expand(rng: SeededRandom, template: string, pools: Pools): string {
  const text = template.replace(/\{(\w+)\}/g, (_, name: string) => rng.pick(pools[name]));
  return text.charAt(0).toUpperCase() + text.slice(1);
}
