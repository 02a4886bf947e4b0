// Chinese cue words: closed classes of function words, interjections and predicates that tell a
// statement from a question, request or acknowledgement, and which kind of state a statement sets.
// Never things, places or people: those come from the text itself.
import type { SlotKind } from "./slots";

/** Whole-clause acknowledgements and back-channel replies (after fillers and particles are trimmed). */
export const ACK_ZH =
  /^(?:(?:好的?|好吧|好嘞|好滴|好哒|行|行吧|可以|嗯+|哦+|噢+|喔+|噢噢|收到|明白|了解|懂了|清楚了|知道|没问题|没事|放心|对|对的|是的|是啊|没错|当然|谢谢你?|谢啦|多谢|感谢|不客气|不用谢|抱歉|哈+|嘿+|呵+|好的呢|谢谢提醒|对不起|不好意思|很抱歉|真抱歉|非常抱歉|实在抱歉|辛苦了?|太好了|太棒了|妥了?|棒|真棒|赞|完美|ok|okay|(?:我)?(?:已经)?(?:帮你|给你)?(?:记下|记住|记好|记录|记)(?:来)?(?:了|啦)?|已(?:经)?(?:记下|记住|记录)|(?:我)?会记住的?|我记着呢|有道理|说得对|也是)(?:了|啦|呀|呢|哈|的|哦|啊|嘛|喽)*)+$/;

/** A reply that says it has nothing to say (the assistant's "I don't know"). */
export const NON_ANSWER_ZH =
  /不知道|不(?:太|大|是很)?(?:清楚|确定|记得)|(?:记忆|记录)(?:里|中)?(?:没有|没)|无法回答|没法回答|不知道|不清楚|不确定|不记得|记不清|记不得|想不起来|查不到|找不到|无法回答|没法回答|没(?:有)?(?:存|记下来|记录)|没有?[^,]{0,8}?(?:记忆|记录|信息|印象|资料|内容)|没印象|没(?:跟我|和我)?(?:说|提)过|还没告诉过我|好像没(?:跟我|和我)?(?:说|提)过/;

/** "Remember / note that …": a request whose content the speaker asserts; the content is classified on its own. */
export const MEMORY_WRAPPER_ZH =
  /^(?:请|麻烦)?(?:你)?(?:帮我|给我|替我)?(?:记住|记一下|记下来|记下|记着|记好|记得|备忘|备注|登记一下)(?:一下)?(?:吧|哦|啊)?(?:[,:]|\s)*/;

/** Leading words that say nothing about the content: interjections, discourse markers, time adverbs of narration. */
export const LEADING_FILLER_ZH = /^(?:嗯+|哦+|噢+|啊+|哈+|诶|欸|唉|哎|呃|对了|另外|还有|顺便说一下|顺便说|顺便|话说|其实|那个|就是|就是说|所以|然后|而且|不过|但是|可是)+[,\s]*/;

/** Question words; a clause holding one asks rather than asserts (see QUESTION_WORD_EXCEPTIONS_ZH). */
export const QUESTION_WORD_ZH =
  /什么|啥|哪(?!怕)|谁|多少|多久|多大|多长|多远|多高|多重|怎么|怎样|咋|如何|为什么|为啥|为何|是否|难道|干嘛|几(?:点|号|月|时|岁|年级)|(?<!了.{0,2})几(?:只|条|辆|台|本|张|件|套|位|头|匹|盆|棵|部|双|把|间|瓶|支|块|度|个)|(?:星期|周|礼拜)几|([\u4e00-\u9fff])不\1/;

/** Uses of question words that assert ("什么都行", "没什么", "不怎么喜欢", "谁都知道"). */
export const QUESTION_WORD_EXCEPTIONS_ZH = /什么都|什么也|没什么|不管什么|无论什么|随便什么|什么的|哪儿都|哪里都|哪都|谁都|谁也|怎么都|怎么也|不怎么|多少有点|多少也/g;

/** Sentence-final question particles. */
// "还在鞋柜里不", "到了没": a verb phrase closed by 不/没 asks whether it holds.
export const QUESTION_PARTICLE_ZH = /(?:吗|么|嘛|来着|(?<=(?:还|在|是|有|用|去|到)[^，,]{1,30})(?:不|没|没有))$/;

/** Asking to ask ("请问", "我想问一下"): the clause belongs to the question that follows. */
export const QUESTION_OPENER_ZH = /^(?:请问|想问一下|想问|问一下|问个问题|我想问(?:一下)?|我想知道|你知道|你还记得|还记得)/;

/** Openers of a request addressed to the listener. */
export const REQUEST_ZH =
  /^(?:查[:：]|查一下|查查|搜一下|把.+?(?:翻译|改成|写成|整理|加到|加进|删掉|发给|告诉我)|定一?个|起草|列一?个|写一?个|设一?个|请你?|麻烦你?|劳驾|帮我|帮忙|给我|替我|告诉我|提醒我|跟我说|让我们|我们来|咱们来|你(?:能|可以|帮|给|去|来|再|先)|我想让你|我要你|我需要你|能不能帮|可以帮|帮个忙|随便陪我|陪我|把这[段篇个句]|翻译|讲个|讲一个|推荐|写一[首篇段个封]|查一下|算一下|搜一下|找一下|列一下|总结一下|解释一下|介绍一下|分析一下|生成|画一[张个幅])/;

// ---- state-slot predicates ----

/** Verbs of moving house; with the speaker (or a person) as subject they set where someone lives. */
// ("搬去新加坡长住了": how long someone stays is not where.)
export const RESIDENCE_MOVE_ZH = "(?:迁居至|迁至|搬至|移居至|搬家到|搬家去|搬到|搬去|搬来|搬回|搬进|迁到|迁居到?|移居到?|定居到|落户到?)";
/** Verbs of living somewhere; whoever the subject, they set a residence. */
export const RESIDENCE_LIVE_ZH = "(?:现居|居住在|居住于|居于|定居于|常住|住在|住到|住进|定居在|生活在|安家在|落户在|家在|(?<![多些们有])人在(?=[\u4e00-\u9fff]{2,6}(?:了|呢|啊)?$)(?!公司|单位|家|医院|学校|路上|外面|车上|店里|楼下|楼上|办公室|会上|现场)|住(?!院|了|手|口|嘴|址|宿)(?=[\u4e00-\u9fffa-z]{2}))";
/** Workplace: "在 X 工作/上班…", or a verb that lands a job at X. */
export const WORK_NOUN_ZH = "(?:工作|上班|任职|就职|实习|打工|供职|教书|上课|当老师)";
// After 在 + employer: a job ("当护士", "做产品"); 做 + the few everyday objects that are not a job is excluded.
export const WORK_AS_ZH = "(?:当|做(?!饭|菜|作业|运动|家务|梦|题|手工|实验|蛋糕|头发|指甲|体检|检查)|干|搞|负责|带)";
export const WORK_MOVE_ZH = "(?:跳槽到|跳槽去|跳槽进|跳去|跳到|入职了?|调到|调去|转到|去了|进了|加入了?|加盟了?|供职于|任职于|就职于|受雇于|效力于|换到了?|换去了?)";

/** Verbs that move an event in time; the value must then be a time expression. */
export const SCHEDULE_VERB_ZH =
  "(?:变更为|变更到|变更至|就定(?=[^，,]{0,4}(?:周|星期|礼拜|下|这|本|今|明|后|[0-9一二三四五六七八九十]))|改于|顺延至|顺延到|时间调整为|时间改为|提到(?=[^，,]{0,4}(?:周|星期|礼拜|下|这|本|今|明|后|[0-9一二三四五六七八九十]))|改期到|改期至|改到|改在|推迟到|推迟至|推后到|往后推到|推到|延期到|延期至|延后到|延迟到|延到|提前到|提前至|往前挪到|挪到|调到|调整到|调整为|换到|定在|定于|安排在|安排到|(?<!预)约在|(?<!预)约到|改签到|改签为|改签成|改成|改为|换成|变成|变到|移到)";

/** Liking verbs, strongest first; a liking + consumption verb ("更喜欢喝") names a preference category. */
// Optionally with the verb of the habit before 的: "最常去的咖啡店", "最喜欢吃的零食".
export const FAVOURITE_ZH = "(?:最喜欢|最爱|更喜欢|更爱|最中意|最稀罕|最偏爱|偏爱|最常|最钟爱|常|固定)(?:去|点|吃|喝|听|看|用|买|玩|读)?";

/** Possession counts: "有/养了 N 只 X". */
export const HAVE_COUNT_ZH = "(?:有|养了|养着|养|拥有)";
export const NUMERAL_ZH = "(?:[0-9]+|[一二两三四五六七八九十百千万半几]+)";
export const CLASSIFIER_ZH = "(?:个|只|条|辆|台|本|张|件|套|位|头|匹|盆|棵|部|双|把|间|套|瓶|支|块|张)";

// ---- query cues ----

const STILL_ZH = /(?:还是|还在|还用|还住|仍然是|依然是|是不是还).{1,24}(?:吗|么|嘛|没|\?)?$/;

export const KIND_CUES_ZH: Array<[RegExp, SlotKind]> = [
  // "护照还在保险柜里吗": asking whether a place still holds is asking where the thing is now.
  [/哪里|哪儿|在哪|放哪|搁哪|什么地方|哪个地方|哪些地方|位置|放在|放到|放过|搁过|还在|仍在|在不在|是不是在|谁拿着|在谁那|在谁手/, "location"],
  [/什么时候|几点|哪天|几号|哪一天|哪个时间|时间|日期|星期几|周几|礼拜几|改到|推迟|提前|还是(?:每|下|这)?(?:周|星期|礼拜)/, "schedule"],
  [/喜欢|最爱|偏好|偏爱|首选|爱喝|爱吃|口味|常去|常点|常买|常用|常喝|常吃|钟情|迷上|爱上|中意|心头好|喜好/, "preference"],
  [/住|搬|家在|人在|家住|哪个城市|居住|城市|小区|定居|落脚|安家|生活|哪座城|落户/, "residence"],
  [/工作|上班|公司|单位|就职|任职|实习|跳槽|入职|东家|供职|打工/, "workplace"],
  [/几(?!点|号|月|时)[\u4e00-\u9fff]|多少|数量|多重|多高|多长时间|(?:我|我们|我家)的.{1,8}(?:是什么|是啥|怎么样)/, "state"],
  [/号码|手机号|电话|邮箱|地址|微信|联系方式|联系|联络|打给|分机|内线/, "contact"],
  // "小林还住青岛吗", "周会还是周四吗", "我还在阿里吗": asking whether a value still holds asks for the current one,
  // of whatever kind the subject's slot is.
  ...(["location", "schedule", "preference", "residence", "workplace", "state", "contact"] as const).map((kind): [RegExp, SlotKind] => [STILL_ZH, kind]),
];

/** The speaker, as a query names them; "我姐", "我妈的" name a relative, not the speaker. */
export const FIRST_PERSON_ZH = /(?:我|咱|俺)(?!的|们的|妈|爸|哥|姐|弟|妹|爷|奶|姥|外公|外婆|叔|姑|舅|姨|老公|老婆|媳妇|儿子|女儿|闺女|室友|同事|老板|闺蜜|表|堂|男朋友|女朋友)/;

/** Words that ask for the state as it is now ("现在", "目前", "最新"). */
export const CURRENT_ZH = /现在|目前|如今|当前|最新|眼下|这会儿|现如今|现今|现阶段/;

/** Hedges that make a clause a guess, not a statement: "我记得护照在抽屉里，现在还在吗？". */
export const HEDGE_ZH = /^(?:我记得|我印象中|印象中|我好像|好像|我以为|我猜|应该是|是不是|我没记错的话)/;

/** Why the speaker asks, before the question ("我又忘了，…？", "不好意思，…？", "我要给她打电话，…？"): part of the question. */
export const ASKING_PREAMBLE_ZH = /忘了|忘记|忘掉|想不起|记不起|记不清|记不住|不记得|记性|脑子|糊涂|搞混|弄混|搞不清|找不到|找不着|没找到|急用|打扰|不好意思|抱歉|麻烦你/;

/** Words that ask for a state's history ("怎么变化的", "先后", "换过哪些"). */
export const HISTORY_ZH = /变化|变过|先后|换过|改过|历史|经历|前后|一路/;
