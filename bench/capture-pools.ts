// Word pools for the capture benchmark's planted states and action sequences: the things, events,
// categories and owners a subject is made of, and the places, times, cities and companies its
// values are drawn from. Lists are disjoint where a shared tail would merge two subjects.

/** zh place: noun + localiser, kept apart so chit-chat can mention the noun alone ("花盆"). */
export const ZH_PLACES: Array<[string, string]> = [
  ["鞋柜", "里"], ["花盆", "里"], ["书桌抽屉", "里"], ["床头柜", "上"], ["冰箱", "上面"], ["玄关挂钩", "上"],
  ["双肩包", "里"], ["外套口袋", "里"], ["后备箱", "里"], ["办公室抽屉", "里"], ["保险箱", "里"], ["书架", "上"],
  ["洗手台", "上"], ["电视柜", "下面"], ["储物间", "里"], ["衣柜", "里"], ["餐桌", "上"], ["阳台柜子", "里"],
  ["沙发", "底下"], ["工具箱", "里"], ["收纳盒", "里"], ["窗台", "上"],
];

/** en place: preposition + noun phrase ("in" + "the safe"), so templates can say "to the safe". */
export const EN_PLACES: Array<[string, string]> = [
  ["in", "the desk drawer"], ["in", "the safe"], ["on", "the bookshelf"], ["under", "the bed"], ["in", "the shoe cabinet"],
  ["in", "the flower pot"], ["on", "the kitchen counter"], ["in", "the backpack"], ["in", "the coat pocket"], ["in", "the glovebox"],
  ["on", "the hook by the door"], ["in", "the bedside table"], ["in", "the wardrobe"], ["in", "the storage room"], ["on", "the top shelf"],
  ["in", "the filing cabinet"], ["behind", "the TV"], ["in", "the bathroom cabinet"], ["in", "the hallway drawer"], ["in", "the toolbox"],
  ["on", "the windowsill"], ["in", "the sewing basket"],
];

export const ZH_THINGS = [
  "护照", "身份证", "雨伞", "耳机", "钱包", "眼镜", "驾照", "银行卡", "户口本", "体检报告", "剪刀", "手电筒", "胶带", "螺丝刀",
  "遥控器", "针线盒", "创可贴", "医保卡", "相册", "日记本", "保修卡", "充电宝", "U盘", "移动硬盘", "工牌", "门禁卡", "钢笔", "印章",
  "租房合同", "结婚证", "备用眼镜盒", "暖宝宝", "口罩", "登山杖",
];

/** [noun, plural] — the verb and pronoun agree with it ("my keys are", "it is"). */
export const EN_THINGS: Array<[string, boolean]> = [
  ["passport", false], ["wallet", false], ["glasses", true], ["umbrella", false], ["headphones", true], ["ID card", false],
  ["driving licence", false], ["bank card", false], ["tape measure", false], ["scissors", true], ["torch", false],
  ["remote control", false], ["sewing kit", false], ["first-aid kit", false], ["power bank", false], ["USB stick", false],
  ["hard drive", false], ["warranty card", false], ["photo album", false], ["diary", false], ["fountain pen", false],
  ["tax papers", true], ["birth certificate", false], ["library card", false], ["gym pass", false], ["camera bag", false],
  ["spare lightbulbs", true], ["hiking poles", true], ["lease agreement", false], ["vaccination record", false],
];

/** Deliberate near-subject pairs: the second name ends with the first, so a head-noun matcher merges them. */
export const NEAR_PAIRS = {
  zh: { tuning: ["钥匙", "车钥匙"], heldout: ["充电器", "笔记本充电器"] },
  en: { tuning: [["keys", true], ["car keys", true]], heldout: [["charger", false], ["laptop charger", false]] },
} as const;

export const ZH_EVENTS = [
  "牙医预约", "团队周会", "航班", "体检", "家长会", "驾照考试", "年会", "钢琴课", "瑜伽课", "理发预约", "面试", "论文答辩",
  "读书会", "篮球赛", "音乐会", "疫苗接种", "婚礼彩排", "同学聚会", "项目评审", "季度汇报", "签证面谈", "搬家公司上门",
  "装修验收", "房东看房", "眼科复查", "游泳课",
];
export const EN_EVENTS = [
  "dentist appointment", "team meeting", "flight", "check-up", "parent-teacher meeting", "driving test", "piano lesson",
  "yoga class", "haircut", "job interview", "thesis defence", "book club", "basketball game", "concert", "vaccination",
  "wedding rehearsal", "class reunion", "project review", "quarterly review", "visa interview", "movers' visit",
  "landlord inspection", "eye exam", "swimming lesson", "tax advisor call",
];
export const ZH_DAYS = ["周一", "周二", "周三", "周四", "周五", "周六", "周日", "下周一", "下周三", "下周五", "3月12日", "4月8日", "5月20日", "6月3日", "9月15日", "11月2日"];
export const ZH_HOURS = ["早上七点", "上午九点", "上午十点半", "中午十二点", "下午两点", "下午三点", "下午四点半", "晚上七点", "晚上八点"];
export const EN_DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday", "the 3rd", "the 8th", "the 12th", "the 15th", "the 20th", "the 27th"];
export const EN_HOURS = ["7am", "9am", "10:30am", "noon", "2pm", "3pm", "4:30pm", "7pm", "8pm"];

/** zh preference category: [category, verb that takes an item ("" where none fits), items]. */
export const ZH_PREFERENCES: Array<[string, string, string[]]> = [
  ["饮料", "喝", ["拿铁", "茶", "美式咖啡", "橙汁", "可乐", "豆浆", "柠檬水", "奶茶"]],
  ["水果", "吃", ["芒果", "草莓", "西瓜", "荔枝", "苹果", "葡萄", "香蕉", "榴莲"]],
  ["颜色", "", ["蓝色", "绿色", "红色", "黑色", "紫色", "黄色"]],
  ["运动", "", ["打羽毛球", "游泳", "跑步", "骑行", "爬山", "打篮球"]],
  ["电影类型", "看", ["科幻片", "喜剧片", "纪录片", "动画片", "悬疑片"]],
  ["零食", "吃", ["薯片", "坚果", "海苔", "巧克力", "牛肉干"]],
  ["甜点", "吃", ["提拉米苏", "芝士蛋糕", "双皮奶", "冰淇淋", "蛋挞"]],
  ["季节", "", ["春天", "夏天", "秋天", "冬天"]],
  ["花", "", ["玫瑰", "向日葵", "百合", "郁金香", "茉莉"]],
  ["音乐类型", "听", ["爵士乐", "摇滚", "民谣", "古典音乐", "说唱"]],
  ["早餐", "吃", ["包子", "油条", "煎饼果子", "燕麦粥", "三明治"]],
  ["菜系", "吃", ["川菜", "粤菜", "湘菜", "日料", "西餐"]],
  ["乐器", "弹", ["钢琴", "吉他", "尤克里里", "古筝"]],
  ["桌游", "玩", ["狼人杀", "三国杀", "卡坦岛", "大富翁"]],
  ["作家", "读", ["余华", "村上春树", "刘慈欣", "东野圭吾"]],
  ["茶叶", "喝", ["龙井", "普洱", "铁观音", "大红袍"]],
];
export const EN_PREFERENCES: Array<[string, string[]]> = [
  ["drink", ["latte", "tea", "espresso", "orange juice", "cola", "oat milk", "lemonade", "matcha"]],
  ["fruit", ["mango", "strawberries", "watermelon", "lychee", "apples", "grapes", "bananas"]],
  ["colour", ["blue", "green", "red", "black", "purple", "yellow"]],
  ["sport", ["badminton", "swimming", "running", "cycling", "climbing", "basketball"]],
  ["film genre", ["sci-fi", "comedy", "documentaries", "animation", "thrillers"]],
  ["snack", ["crisps", "nuts", "seaweed", "chocolate", "beef jerky"]],
  ["dessert", ["tiramisu", "cheesecake", "panna cotta", "ice cream", "egg tarts"]],
  ["season", ["spring", "summer", "autumn", "winter"]],
  ["flower", ["roses", "sunflowers", "lilies", "tulips", "jasmine"]],
  ["music genre", ["jazz", "rock", "folk", "classical", "hip hop"]],
  ["breakfast", ["porridge", "pancakes", "toast", "granola", "eggs"]],
  ["cuisine", ["Sichuan", "Cantonese", "Italian", "Japanese", "Mexican"]],
  ["instrument", ["piano", "guitar", "ukulele", "violin"]],
  ["board game", ["Catan", "Monopoly", "chess", "Ticket to Ride"]],
  ["author", ["Le Guin", "Murakami", "Pratchett", "Tolkien"]],
  ["pizza topping", ["mushrooms", "pepperoni", "pineapple", "olives"]],
];

/** Owners of residence, workplace and contact subjects; the speaker comes first. */
export const ZH_OWNERS = ["我", "我姐姐", "我哥哥", "我妈妈", "我爸爸", "我弟弟", "我妹妹", "我表哥", "我室友", "我老板", "我外婆", "我舅舅"];
export const EN_OWNERS = ["I", "my sister", "my brother", "my mum", "my dad", "my cousin", "my flatmate", "my boss", "my grandma", "my uncle", "my aunt", "my neighbour"];

export const ZH_CITIES = ["杭州", "成都", "北京", "上海", "深圳", "广州", "南京", "武汉", "西安", "重庆", "苏州", "厦门", "青岛", "大连", "昆明", "长沙"];
export const EN_CITIES = ["Berlin", "Lisbon", "London", "Paris", "Madrid", "Toronto", "Boston", "Seattle", "Dublin", "Amsterdam", "Vienna", "Prague", "Oslo", "Sydney", "Austin", "Kyoto"];
export const ZH_COMPANIES = ["腾讯", "阿里巴巴", "字节跳动", "华为", "小米", "网易", "美团", "京东", "百度", "拼多多", "比亚迪", "大疆", "招商银行", "携程", "蔚来"];
export const EN_COMPANIES = ["Acme", "Globex", "Initech", "Northwind", "Contoso", "Fabrikam", "Hooli", "Vandelay Industries", "Cyberdyne", "Tailspin Toys", "Soylent", "Wonka", "Umbrella Labs", "Blue Sun", "Oscorp"];

/** zh measure: [attribute, unit, low, high, step]. */
export const ZH_MEASURES: Array<[string, string, number, number, number]> = [
  ["体重", "公斤", 50, 90, 1], ["房租", "元", 2000, 9000, 100], ["通勤时间", "分钟", 10, 90, 5], ["睡眠时间", "小时", 5, 9, 1],
  ["月预算", "元", 3000, 12000, 500], ["每周跑量", "公里", 5, 60, 5], ["静息心率", "次每分钟", 52, 80, 1], ["体脂率", "%", 12, 30, 1],
  ["每天饮水量", "毫升", 1000, 3000, 250], ["存款目标", "万元", 5, 50, 5], ["每日步数目标", "步", 4000, 15000, 1000],
];
export const EN_MEASURES: Array<[string, string, number, number, number]> = [
  ["weight", "kg", 50, 95, 1], ["rent", "euros", 700, 2500, 50], ["commute", "minutes", 10, 90, 5], ["sleep target", "hours", 5, 9, 1],
  ["monthly budget", "dollars", 1000, 5000, 250], ["weekly running distance", "km", 5, 60, 5], ["resting heart rate", "bpm", 52, 80, 1],
  ["body fat", "percent", 12, 30, 1], ["daily water intake", "ml", 1000, 3000, 250], ["savings goal", "pounds", 2000, 40000, 1000],
  ["daily step goal", "steps", 4000, 15000, 1000],
];

/** zh count: [noun, classifier]. None is the tail of an action object or a location thing. */
export const ZH_COUNTS: Array<[string, string]> = [
  ["猫", "只"], ["狗", "条"], ["金鱼", "条"], ["多肉植物", "盆"], ["乌龟", "只"], ["仓鼠", "只"], ["信用卡", "张"], ["显示器", "台"],
  ["鹦鹉", "只"], ["兔子", "只"], ["电动车", "辆"],
];
export const EN_COUNTS = ["cats", "dogs", "goldfish", "houseplants", "tortoises", "hamsters", "credit cards", "monitors", "succulents", "parrots", "rabbits"];

export const ZH_COLOURS = ["蓝色", "红色", "黑色", "白色", "绿色", "黄色", "灰色", "粉色", "紫色", "银色", "橙色", "棕色"];
export const ZH_OBJECTS = [
  "马克杯", "自行车", "保温杯", "台灯", "键盘", "鼠标", "花瓶", "滑板", "电饭煲", "风扇", "音箱", "闹钟", "相机", "手表", "书包",
  "水壶", "平底锅", "打印机", "运动鞋", "电动牙刷",
];
export const EN_COLOURS = ["blue", "red", "black", "white", "green", "yellow", "grey", "pink", "purple", "silver", "orange", "brown"];
export const EN_OBJECTS = [
  "mug", "bike", "thermos", "desk lamp", "keyboard", "mouse", "vase", "skateboard", "rice cooker", "fan", "speaker", "alarm clock",
  "kettle", "frying pan", "printer", "raincoat", "scooter", "backpack", "wristwatch", "electric toothbrush",
];
