// Memories the Memories page's tests start from: a passport moved twice (书桌抽屉 → 衣柜顶 → 保险箱),
// an acknowledgement, a preference in a project scope, and everyday notes enough for two pages.

const DAY_MS = 86_400_000;
export const T0_MS = Date.UTC(2025, 0, 5, 9, 0);

export interface SeedRecord {
  id: string;
  text: string;
  source_type: "user_message" | "assistant_message" | "system_fact" | "tool_result";
  timestamp_ms: number;
  scope?: string;
  session_id?: string;
  turn?: number;
}

export const PASSPORT: SeedRecord[] = [
  { id: "m-1", text: "我的护照放在书桌抽屉里。", source_type: "user_message", timestamp_ms: T0_MS, session_id: "s-a", turn: 1 },
  { id: "m-2", text: "护照我挪到衣柜顶上了。", source_type: "user_message", timestamp_ms: T0_MS + 10 * DAY_MS, session_id: "s-a", turn: 2 },
  { id: "m-3", text: "我把护照放进保险箱了。", source_type: "user_message", timestamp_ms: T0_MS + 40 * DAY_MS, session_id: "s-b", turn: 1 },
  { id: "m-4", text: "好的，记下了。", source_type: "assistant_message", timestamp_ms: T0_MS + 40 * DAY_MS + 1000, session_id: "s-b", turn: 1 },
  { id: "m-5", text: "I prefer green tea in the morning, never coffee.", source_type: "user_message", timestamp_ms: T0_MS + 41 * DAY_MS, scope: "project:demo" },
];

const NOTES = [
  "周四下午三点和李伟开项目评审会。",
  "The staging database password rotates every 90 days.",
  "Mia's birthday is on 12 March; she likes watercolour sets.",
  "车停在公司地下二层 B2-117。",
  "The build server is ci-02.internal, not ci-01.",
  "我对花生过敏。",
  "Dentist appointment moved to 9:30 on Monday.",
  "Wi-Fi at the cabin is called 'pinewood', the code is on the fridge.",
  "备用钥匙在邻居王阿姨家。",
  "Quarterly report is due on the last Friday of the month.",
  "The dog's vet is Dr. Okafor at Riverside Clinic.",
  "我喜欢靠窗的座位。",
  "Use pnpm, not npm, in the monorepo.",
  "The plants on the balcony need water every two days.",
  "去年的体检报告放在蓝色文件夹里。",
  "Flight to Chengdu leaves at 07:40 on the 21st.",
  "The printer on floor 3 jams with thick paper.",
  "孩子的钢琴课改到周六上午十点。",
  "Prefer dark mode in every editor.",
  "My library card number starts with 2097.",
];

/** Everyday notes, one a day after the passport's last move, alternating the two sessions' speakers. */
export const NOTES_SEED: SeedRecord[] = NOTES.map((text, i) => ({
  id: `n-${String(i + 1).padStart(2, "0")}`,
  text,
  source_type: i % 5 === 4 ? "system_fact" : "user_message",
  timestamp_ms: T0_MS + (42 + i) * DAY_MS,
  session_id: `s-${i % 3}`,
  turn: i + 1,
}));

export const ALL_SEEDS: SeedRecord[] = [...PASSPORT, ...NOTES_SEED];
