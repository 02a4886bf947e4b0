// Renders the logo's PNG sizes from logo/dsh-dream.svg with sharp (librsvg). Run by hand after
// editing the SVG; the PNGs are committed, so neither the build nor the release needs sharp.
import sharp from "sharp";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const source = path.join(root, "logo/dsh-dream.svg");
const svg = readFileSync(source);
const viewBoxPx = 256;
const sizesPx = [32, 256, 512];

for (const sizePx of sizesPx) {
  const target = path.join(root, `logo/dsh-dream-${sizePx}.png`);
  // Rasterise at the target size directly (density scales the viewBox) rather than resampling.
  await sharp(svg, { density: (72 * sizePx) / viewBoxPx })
    .resize(sizePx, sizePx)
    .png({ compressionLevel: 9, adaptiveFiltering: false })
    .toFile(target);
  console.log(`wrote ${path.relative(root, target)}`);
}
