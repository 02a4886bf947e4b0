// Reading and editing a DSH profile's package.json the way a person would: a BOM and CRLF are
// tolerated, and a rewrite keeps every other key, the indentation, the line endings and the BOM.
import fs from "node:fs";
import { InstallError } from "./errors";

export const PACKAGE_NAME = "dsh-dream";

export interface JsonFile {
  data: Record<string, unknown>;
  indent: string;
  eol: string;
  bom: boolean;
  finalNewline: boolean;
}

export function readJsonFile(file: string): JsonFile {
  const text = fs.readFileSync(file, "utf8");
  const bom = text.charCodeAt(0) === 0xfeff;
  const body = bom ? text.slice(1) : text;
  let data: unknown;
  try {
    data = JSON.parse(body);
  } catch (error) {
    throw new InstallError("PROFILE_MANIFEST_INVALID", `${file} is not valid JSON: ${(error as Error).message}`, { cause: error });
  }
  if (!isRecord(data)) throw new InstallError("PROFILE_MANIFEST_INVALID", `${file} must hold a JSON object`);
  return {
    data,
    indent: detectIndent(body),
    eol: body.includes("\r\n") ? "\r\n" : "\n",
    bom,
    finalNewline: /\n$/.test(body),
  };
}

// A one-line file stays one line; a multi-line one keeps its first level of indentation.
function detectIndent(body: string): string {
  const firstLine = /^\s*[{[][ \t]*\r?\n([ \t]*)/.exec(body);
  return firstLine ? firstLine[1] || "  " : "";
}

export function writeJsonFile(file: string, json: JsonFile): void {
  let text = JSON.stringify(json.data, null, json.indent);
  if (json.eol !== "\n") text = text.replace(/\n/g, json.eol);
  fs.writeFileSync(file, `${json.bom ? "\uFEFF" : ""}${text}${json.finalNewline ? json.eol : ""}`);
}

/** Adds the dependency DSH's Plugins page needs and the bundles entry that activates the layer. */
export function addBundleEntries(json: JsonFile, spec: string): void {
  const dependencies = objectAt(json.data, "dependencies");
  dependencies[PACKAGE_NAME] = spec;
  const profile = objectAt(objectAt(json.data, "dsh"), "profile");
  const bundles = Array.isArray(profile.bundles) ? (profile.bundles as unknown[]) : (profile.bundles = []);
  if (!bundles.includes(PACKAGE_NAME)) bundles.push(PACKAGE_NAME);
}

/** Removes both entries; reports whether anything was there to remove. */
export function removeBundleEntries(json: JsonFile): boolean {
  let changed = false;
  const dependencies = json.data.dependencies;
  if (isRecord(dependencies) && PACKAGE_NAME in dependencies) {
    delete dependencies[PACKAGE_NAME];
    changed = true;
  }
  const bundles = bundlesOf(json.data);
  if (bundles?.includes(PACKAGE_NAME)) {
    (json.data.dsh as { profile: { bundles: unknown[] } }).profile.bundles = bundles.filter((entry) => entry !== PACKAGE_NAME);
    changed = true;
  }
  return changed;
}

export function dependencySpec(data: Record<string, unknown>): string | undefined {
  const dependencies = data.dependencies;
  return isRecord(dependencies) && typeof dependencies[PACKAGE_NAME] === "string" ? (dependencies[PACKAGE_NAME] as string) : undefined;
}

export function bundlesOf(data: Record<string, unknown>): unknown[] | undefined {
  const dsh = data.dsh;
  const profile = isRecord(dsh) ? dsh.profile : undefined;
  return isRecord(profile) && Array.isArray(profile.bundles) ? profile.bundles : undefined;
}

function objectAt(parent: Record<string, unknown>, key: string): Record<string, unknown> {
  const value = parent[key];
  if (value === undefined) return (parent[key] = {}) as Record<string, unknown>;
  if (!isRecord(value)) throw new InstallError("PROFILE_MANIFEST_INVALID", `the profile package.json field "${key}" must be an object, found ${JSON.stringify(value)}`);
  return value;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
