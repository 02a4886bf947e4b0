// opencc-js ships types for its subpath exports that this project's "node" module resolution cannot
// follow; what is used here, as its types/core.d.ts and types/preset.d.ts declare it.
declare module "opencc-js/t2cn" {
  export function Converter(options: { from: "t" | "tw" | "twp" | "hk"; to: "cn" }): (text: string) => string;
  /** Dictionary chains of a configuration: groups of dictionaries, each "from to|from to|…". */
  export const Locale: { configs: { t2s: { normalizationChain: string[][]; conversionChain: string[][] } } };
}
