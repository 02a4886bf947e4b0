// Plots search latency against store size from `bench:search --json` results: a small hand-built
// SVG (log-scale size axis, p95 of lexical, dense and hybrid search), rendered to PNG with sharp
// (present through @xenova/transformers). Run by hand after the benchmark; the PNG is committed.
//
//   node scripts/plot-scale.mjs OUT.png RESULT.json [RESULT.json …]
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const sharp = require("sharp");

const [out, ...inputs] = process.argv.slice(2);
if (!out || inputs.length === 0) throw new Error("usage: node scripts/plot-scale.mjs OUT.png RESULT.json [RESULT.json …]");

const results = inputs
  .map((file) => JSON.parse(readFileSync(file, "utf8").trim().split("\n").filter((line) => line.startsWith("{")).at(-1)))
  .sort((a, b) => a.records - b.records);
const series = [
  { key: "lexical", label: "lexical (BM25)", color: "#3b82f6" },
  { key: "dense", label: "dense (exact ≤ 200k, lists above)", color: "#a855f7" },
  { key: "hybrid", label: "hybrid (BM25 + dense, RRF)", color: "#10b981" },
];
const p95 = (result, key) => result[key]?.p95_ms ?? result.search?.[key]?.p95_ms;

const W = 820, H = 440, left = 70, right = 270, top = 40, bottom = 60;
const plotW = W - left - right, plotH = H - top - bottom;
const sizes = results.map((r) => r.records);
const minX = Math.log10(Math.min(...sizes)), maxX = Math.log10(Math.max(...sizes));
const maxY = Math.max(...results.flatMap((r) => series.map((s) => p95(r, s.key) ?? 0))) * 1.15;
const x = (n) => left + ((Math.log10(n) - minX) / (maxX - minX || 1)) * plotW;
const y = (ms) => top + plotH - (ms / maxY) * plotH;

const ticks = Array.from({ length: 5 }, (_, i) => (maxY / 4) * i);
const parts = [
  `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="DejaVu Sans, Arial, sans-serif" font-size="13">`,
  `<rect width="${W}" height="${H}" fill="#ffffff"/>`,
  `<text x="${left}" y="24" font-size="15" font-weight="bold">Search latency p95 by store size (512-d vectors, top_k 10, 2 cores)</text>`,
  ...ticks.map((t) => `<line x1="${left}" x2="${left + plotW}" y1="${y(t)}" y2="${y(t)}" stroke="#e5e7eb"/><text x="${left - 8}" y="${y(t) + 4}" text-anchor="end">${t.toFixed(t < 10 ? 1 : 0)}</text>`),
  ...sizes.map((n) => `<line x1="${x(n)}" x2="${x(n)}" y1="${top}" y2="${top + plotH}" stroke="#f3f4f6"/><text x="${x(n)}" y="${top + plotH + 20}" text-anchor="middle">${n >= 1e6 ? n / 1e6 + "M" : n / 1e3 + "k"}</text>`),
  `<line x1="${left}" x2="${left}" y1="${top}" y2="${top + plotH}" stroke="#374151"/><line x1="${left}" x2="${left + plotW}" y1="${top + plotH}" y2="${top + plotH}" stroke="#374151"/>`,
  `<text x="${left + plotW / 2}" y="${H - 14}" text-anchor="middle">memories (log scale)</text>`,
  `<text x="18" y="${top + plotH / 2}" text-anchor="middle" transform="rotate(-90 18 ${top + plotH / 2})">p95 ms</text>`,
];
series.forEach((s, i) => {
  const points = results.filter((r) => p95(r, s.key) !== undefined).map((r) => [x(r.records), y(p95(r, s.key))]);
  parts.push(`<polyline fill="none" stroke="${s.color}" stroke-width="2.5" points="${points.map((p) => p.join(",")).join(" ")}"/>`);
  for (const [px, py] of points) parts.push(`<circle cx="${px}" cy="${py}" r="4" fill="${s.color}"/>`);
  // Small sizes crowd together at the bottom: only the larger ones get a value label.
  for (const r of results) if (p95(r, s.key) !== undefined && r.records >= 100_000) parts.push(`<text x="${x(r.records) + 6}" y="${y(p95(r, s.key)) - 6}" font-size="11" fill="${s.color}">${p95(r, s.key).toFixed(1)}</text>`);
  const ly = top + 20 + i * 24;
  parts.push(`<line x1="${left + plotW + 20}" x2="${left + plotW + 44}" y1="${ly}" y2="${ly}" stroke="${s.color}" stroke-width="3"/><text x="${left + plotW + 50}" y="${ly + 4}">${s.label}</text>`);
});
parts.push("</svg>");
await sharp(Buffer.from(parts.join("\n"))).png().toFile(out);
console.log(`plot-scale: wrote ${out} from ${results.length} result(s)`);
