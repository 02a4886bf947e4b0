// opencc-js ships types for its subpath exports that this project's "node" module resolution cannot
// follow; the one function used here, as its types/core.d.ts declares it.
declare module "opencc-js/t2cn" {
  export function Converter(options: { from: "t" | "tw" | "twp" | "hk"; to: "cn" }): (text: string) => string;
}
